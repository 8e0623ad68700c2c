import type { BusBatch, BusItem } from '../realtime-message.js';
import type { BusHandlers, RealtimeBus } from './realtime-bus.js';

/** The IPC messages between workers and the primary (see cluster-relay.ts). */
export type ClusterRealtimeMessage =
  | { readonly fwRealtime: 'publish'; readonly items: readonly BusItem[] }
  | { readonly fwRealtime: 'batch'; readonly batch: BusBatch };

/** True for a realtime IPC message. */
export function isClusterRealtimeMessage(value: unknown): value is ClusterRealtimeMessage {
  return typeof value === 'object' && value !== null && 'fwRealtime' in value;
}

/**
 * The bus of a `--workers` worker on SQLite: items go to the primary, which numbers each batch and
 * sends it to every worker, this one included, so all see the same batches in the same order.
 */
export class ClusterBus implements RealtimeBus {
  #onMessage: ((message: unknown) => void) | undefined;
  #handlers: BusHandlers | undefined;

  async start(handlers: BusHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#onMessage = (message: unknown) => {
      if (isClusterRealtimeMessage(message) && message.fwRealtime === 'batch') this.#handlers?.deliver(message.batch);
    };
    process.on('message', this.#onMessage);
  }

  publish(items: readonly BusItem[]): Promise<void> {
    const message: ClusterRealtimeMessage = { fwRealtime: 'publish', items };
    // A worker whose primary is gone is about to stop; its events have nobody to reach.
    if (!process.connected || !process.send) return Promise.resolve();
    // Handed over once written to the channel: the primary reads its channels in order.
    return new Promise((resolve) => process.send!(message, undefined, undefined, () => resolve()));
  }

  async close(): Promise<void> {
    if (this.#onMessage) process.off('message', this.#onMessage);
    this.#handlers = undefined;
  }
}
