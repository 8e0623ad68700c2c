import { randomBytes } from 'node:crypto';
import type { BusBatch, BusItem } from '../realtime-message.js';

/** What a bus hands received batches to. */
export interface BusHandlers {
  /** Every batch, this process's own included, in the order the bus fixed for all processes. */
  deliver(batch: BusBatch): void;
  /** Batches may have been missed (a lost connection): clients should fetch afresh. */
  resync(reason: string): void;
}

/**
 * Carries realtime items to every process serving the site: in memory for one process, through the
 * cluster primary for `--workers` on SQLite, through LISTEN/NOTIFY on PostgreSQL
 * (docs/realtime.md, "Across processes").
 */
export interface RealtimeBus {
  start(handlers: BusHandlers): Promise<void>;
  /**
   * Sends items to every process, this one included; resolves once they are handed over (the
   * order of all processes is fixed from there). Best effort: a failure is logged, never rejected.
   */
  publish(items: readonly BusItem[]): Promise<void>;
  close(): Promise<void>;
}

/** A prefix that keeps batch ids of one process run apart from those of another. */
export function runPrefix(): string {
  return randomBytes(4).toString('hex');
}

/** The bus of a single process: batches go straight back to this process, numbered in order. */
export class LocalBus implements RealtimeBus {
  readonly #prefix = runPrefix();
  #seq = 0;
  #handlers: BusHandlers | undefined;

  async start(handlers: BusHandlers): Promise<void> {
    this.#handlers = handlers;
  }

  publish(items: readonly BusItem[]): Promise<void> {
    this.#handlers?.deliver({ id: `${this.#prefix}-${++this.#seq}`, items });
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.#handlers = undefined;
  }
}
