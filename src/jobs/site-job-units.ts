import { loadPrincipal } from '../auth/principal.js';
import type { Site } from '../site/site.js';
import type { JobUnits, JobWorker, JobWorkerOptions } from './job-worker.js';
import { JobWorker as Worker } from './job-worker.js';

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

/** Starts a worker on the site's queue whose jobs can read and write documents. */
export function startSiteWorker(site: Site, options: Omit<JobWorkerOptions, 'units'> = {}): JobWorker {
  const worker = new Worker(site.jobs, { ...options, units: siteJobUnits(site) });
  worker.start();
  return worker;
}
