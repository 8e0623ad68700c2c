import cluster from 'node:cluster';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { countJobs } from '../jobs/job-store.js';
import { offerToCluster } from './cluster-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import type { Database } from '../storage/database.js';

/** The verbs counted by name; anything else (a client's invention) is counted as OTHER. */
const VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A route label for requests no route matched, so unknown URLs never become labels of their own. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the site's metrics read: its database (pool and job counts). */
export interface MetricsSource {
  readonly db: Database;
}

/**
 * The Prometheus metrics of one site in one process, in a registry of its own (never prom-client's
 * global one), so several sites or test apps in a process keep their numbers apart. Request counts
 * and durations are recorded as answers go out; the database pool, the job queue, the event loop
 * and the process are read when the metrics are asked for.
 */
export class SiteMetrics {
  readonly registry = new Registry();
  readonly #requests = new RequestMetrics();

  constructor(site: MetricsSource) {
    const registry = this.registry;
    // `fw serve --workers N`: each worker answers its own numbers, told apart by this label.
    registry.setDefaultLabels({ worker: String(cluster.worker?.id ?? 0) });
    // Unprefixed (process_*, nodejs_*), as dashboards for Node processes expect them.
    collectDefaultMetrics({ register: registry });
    registry.registerMetric(this.#requests.counter());
    registry.registerMetric(this.#requests.durations());
    new Gauge({
      name: 'fw_db_pool_connections',
      help: 'Database connections of this process by state (in_use, idle); SQLite counts its readers and its writer',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = site.db.poolStats();
        this.set({ state: 'in_use' }, stats.inUse);
        this.set({ state: 'idle' }, stats.idle);
      },
    });
    new Gauge({
      name: 'fw_db_pool_waiting',
      help: 'Units of work waiting for a database connection (SQLite: write transactions waiting for the writer)',
      registers: [registry],
      collect() {
        this.set(site.db.poolStats().waiting);
      },
    });
    new Gauge({
      name: 'fw_jobs',
      help: 'Background jobs in the site queue by status (queued, running, failed); the same for every process of the site',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counts = await site.db.read((q) => countJobs(q, site.db.dialect));
        for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
      },
    });
    offerToCluster(registry);
  }

  /** Records one answered request. `route` is the route's pattern, never the URL itself. */
  observe(method: string, route: string | undefined, status: number, seconds: number): void {
    this.#requests.observe(VERBS.has(method) ? method : 'OTHER', route ?? UNMATCHED_ROUTE, status, seconds);
  }
}

const bySite = new WeakMap<MetricsSource, SiteMetrics>();

/** The metrics of `site` in this process, made on first use. */
export function siteMetrics(site: MetricsSource): SiteMetrics {
  let metrics = bySite.get(site);
  if (!metrics) {
    metrics = new SiteMetrics(site);
    bySite.set(site, metrics);
  }
  return metrics;
}
