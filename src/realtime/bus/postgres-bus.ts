import type { BroadcastChannel } from '../../storage/database.js';
import type { BusBatch, BusItem } from '../realtime-message.js';
import type { BusHandlers, RealtimeBus } from './realtime-bus.js';

const HANDED_OFF: Promise<void> = Promise.resolve();

/**
 * The bus of a PostgreSQL site: each batch is one row and one NOTIFY (see the database's broadcast
 * channel), so every process on every machine gets it with the same id, in commit order; after a
 * lost listening connection the channel replays from the table, or reports a gap that becomes a
 * `resync` for clients.
 */
export class PostgresBus implements RealtimeBus {
  #markStarted: () => void = () => undefined;
  /** Publishing may begin before the listener is in place; sends wait for it, so none is missed here. */
  #sending: Promise<void> = new Promise<void>((resolve) => (this.#markStarted = resolve));

  constructor(
    private readonly channel: BroadcastChannel,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  async start(handlers: BusHandlers): Promise<void> {
    try {
      await this.#open(handlers);
    } finally {
      this.#markStarted();
    }
  }

  async #open(handlers: BusHandlers): Promise<void> {
    await this.channel.open({
      message: (id, payload) => {
        let items: BusItem[];
        try {
          items = JSON.parse(payload) as BusItem[];
        } catch {
          return;
        }
        if (Array.isArray(items)) handlers.deliver({ id, items } satisfies BusBatch);
      },
      gap: (reason) => handlers.resync(reason),
    });
  }

  publish(items: readonly BusItem[]): Promise<void> {
    const payload = JSON.stringify(items);
    // One after another, so this process's batches keep their order.
    this.#sending = this.#sending.then(() => this.channel.send(payload)).catch(this.onError);
    // Not awaited by the write that caused it: the chain is per process, and waiting for it would
    // queue every answer behind every earlier NOTIFY (docs/realtime.md, "Across processes").
    return HANDED_OFF;
  }

  async close(): Promise<void> {
    await this.#sending;
    await this.channel.close();
  }
}
