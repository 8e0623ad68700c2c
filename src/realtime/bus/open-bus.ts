import cluster from 'node:cluster';
import { ClusterBus } from './cluster-bus.js';
import { PostgresBus } from './postgres-bus.js';
import { LocalBus, type RealtimeBus } from './realtime-bus.js';
import type { BusSource } from '../realtime-site.js';

/**
 * The bus that reaches every process serving the site: PostgreSQL's LISTEN/NOTIFY when the
 * database offers it (any number of processes and machines), else the cluster primary for
 * `--workers` workers, else this process alone (docs/realtime.md, "Across processes").
 */
export function openBus(site: BusSource, onError: (err: unknown) => void): RealtimeBus {
  const listenUrl = site.config.realtime.realtime_listen_url ?? undefined;
  const channel = site.db.broadcast?.(listenUrl ? { listenUrl } : {});
  if (channel) return new PostgresBus(channel, onError);
  if (cluster.isWorker) return new ClusterBus();
  return new LocalBus();
}
