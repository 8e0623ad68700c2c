import { loadPrincipal } from '../auth/principal.js';
import { JobWorker, type JobUnits, type JobWorkerOptions } from '../jobs/job-worker.js';
import { registerScheduledRunJob, Scheduler } from '../jobs/scheduler.js';
import type { Site } from './site.js';

/**
 * Units of work for jobs: a read or a transaction on the site acting as the job's user, resolved
 * afresh for each unit (a user disabled since the job was enqueued makes its work fail).
 */
export function siteJobUnits(site: Site): JobUnits {
  const principalOf = async (user: string) => {
    const principal = await site.db.read((q) => loadPrincipal(q, site.db.dialect, user));
    if (!principal) throw new Error(`The job's user ${user} is missing or disabled`);
    return principal;
  };
  return {
    read: async (user, work) => site.read(await principalOf(user), work),
    write: async (user, work) => site.write(await principalOf(user), work),
  };
}

/** The scheduler of a site (its run job is registered by {@link registerSiteScheduler}). */
export function siteScheduler(site: Site, options: ConstructorParameters<typeof Scheduler>[1] = {}): Scheduler {
  return new Scheduler({ db: site.db, metas: site.metas, jobs: site.jobs, timeZone: () => site.settingsCache.current.time_zone }, options);
}

/** Registers the job that runs scheduled handlers; called once when the site opens. */
export function registerSiteScheduler(site: Site): void {
  registerScheduledRunJob({ db: site.db, metas: site.metas, jobs: site.jobs, timeZone: () => site.settingsCache.current.time_zone });
}

/** A process's background work: the job worker and the scheduler. */
export interface RunningJobs {
  readonly worker: JobWorker;
  readonly scheduler: Scheduler;
  stop(): Promise<void>;
}

/** FW_SCHEDULER_TICK_MS: how often the scheduler looks for due slots (default 30 s; tests shorten it). */
export function schedulerTickFromEnv(): number | undefined {
  const tick = Number(process.env.FW_SCHEDULER_TICK_MS);
  return Number.isInteger(tick) && tick > 0 ? tick : undefined;
}

/** Starts a worker on the site's queue (jobs can read and write documents) and the scheduler. */
export function startSiteWorker(site: Site, options: Omit<JobWorkerOptions, 'units'> & { schedulerTickMs?: number } = {}): RunningJobs {
  const worker = new JobWorker(site.jobs, { ...options, units: siteJobUnits(site) });
  const scheduler = siteScheduler(site, { tickMs: options.schedulerTickMs, logger: options.logger });
  worker.start();
  scheduler.start();
  return {
    worker,
    scheduler,
    async stop() {
      await scheduler.stop();
      await worker.stop();
    },
  };
}
