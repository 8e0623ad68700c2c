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
    enqueue(handler, args, options) {
      if (!queue) return Promise.reject(new Error(`App "${app}": this site has no job queue`));
      return queue.enqueue(handler, args, options);
    },
  };
  return jobs;
}
