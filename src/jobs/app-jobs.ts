import type { EnqueueOptions, HandlerDefaults, JobHandler, JobQueue } from './job-queue.js';

/** Background jobs as an app sees them (docs/apps.md, docs/jobs.md). */
export interface AppJobs {
  /** Registers a job handler; `name` must start with the app's name and a dot (`library.jobs.remind`). */
  register(name: string, handler: JobHandler, defaults?: HandlerDefaults): AppJobs;
  /**
   * Enqueues a job for a registered handler. Pass `{ unit: ctx }` inside a request or hook: the job
   * then exists only if that unit commits.
   */
  enqueue(handler: string, args?: unknown, options?: EnqueueOptions): Promise<string>;
  /**
   * Registers `handler` under `name` and runs it on a schedule (the reference's scheduler_events):
   * `all`, `hourly`, `daily`, `weekly`, `monthly` or a cron expression such as `"0 9 * * 1-5"`.
   */
  schedule(when: string, name: string, handler: JobHandler, defaults?: HandlerDefaults): AppJobs;
}

/** The app's view of the site's job queue, fenced to its namespace for registration. */
export function createAppJobs(app: string, queue: JobQueue | undefined, fail: (problem: string) => never): AppJobs {
  const jobs: AppJobs = {
    register(name, handler, defaults = {}) {
      const what = `jobs.register(${JSON.stringify(name)})`;
      if (!queue) fail(`${what}: this site has no job queue`);
      if (typeof name !== 'string' || !name.startsWith(`${app}.`)) {
        fail(`${what}: a job handler name is dotted names under the app's own namespace, such as "${app}.jobs.send_reminders"`);
      }
      try {
        queue!.register(name, handler, defaults);
      } catch (err) {
        fail(`${what}: ${(err as Error).message}`);
      }
      return jobs;
    },
    schedule(when, name, handler, defaults = {}) {
      jobs.register(name, handler, defaults);
      try {
        queue!.schedule(when, name);
      } catch (err) {
        fail(`jobs.schedule(${JSON.stringify(when)}, ${JSON.stringify(name)}): ${(err as Error).message}`);
      }
      return jobs;
    },
    enqueue(handler, args, options) {
      if (!queue) return Promise.reject(new Error(`App "${app}": this site has no job queue`));
      return queue.enqueue(handler, args, options);
    },
  };
  return jobs;
}
