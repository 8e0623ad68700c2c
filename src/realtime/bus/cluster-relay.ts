import cluster, { type Worker } from 'node:cluster';
import { isClusterRealtimeMessage, type ClusterRealtimeMessage } from './cluster-bus.js';
import { runPrefix } from './realtime-bus.js';

/**
 * The primary's part of the realtime bus for `--workers` (docs/realtime.md, "Across processes"):
 * each batch a worker publishes gets the next id and goes to every live worker, the sender
 * included. Returns the function that stops relaying.
 */
export function relayRealtimeBetweenWorkers(): () => void {
  const prefix = runPrefix();
  let seq = 0;
  const onMessage = (_from: Worker, message: unknown) => {
    if (!isClusterRealtimeMessage(message) || message.fwRealtime !== 'publish') return;
    const out: ClusterRealtimeMessage = { fwRealtime: 'batch', batch: { id: `${prefix}-${++seq}`, items: message.items } };
    for (const worker of Object.values(cluster.workers ?? {})) {
      // A worker that is exiting cannot take it; its clients are gone with it.
      if (worker?.isConnected()) worker.send(out, undefined, () => undefined);
    }
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
