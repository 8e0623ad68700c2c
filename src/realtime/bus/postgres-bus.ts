import type { BroadcastChannel } from '../../storage/database.js';
import type { BusBatch, BusItem } from '../realtime-message.js';
import type { BusHandlers, RealtimeBus } from './realtime-bus.js';

const HANDED_OFF: Promise<void> = Promise.resolve();

/**
 * How long (in characters of JSON) batches that wait behind a send may grow by merging: small
 * enough that the merged payload still rides in its notification (the channel inlines up to 7000
 * bytes; beyond, every listener reads it from the table), large enough for a dozen inserts.
 */
const MERGED_MAX_CHARS = 6000;

/**
 * The bus of a PostgreSQL site: each batch is one row and one NOTIFY (see the database's broadcast
 * channel), so every process on every machine gets it with the same id, in commit order; after a
 * lost listening connection the channel replays from the table, or reports a gap that becomes a
 * `resync` for clients.
 *
 * One send at a time per process, so its batches keep their order; batches published while a send
 * is in flight wait and are merged into one (docs/benchmarks.md "What keeps the hot path fast"):
 * under a write load a send per round trip, not per write, each a transaction of its own.
 */
export class PostgresBus implements RealtimeBus {
  #markStarted: () => void = () => undefined;
  /** Publishing may begin before the listener is in place; sends wait for it, so none is missed here. */
  readonly #started: Promise<void> = new Promise<void>((resolve) => (this.#markStarted = resolve));
  /** Payloads (JSON arrays of items) waiting for their send, oldest first. */
  readonly #waiting: string[] = [];
  /** The loop that sends what waits, while there is any; resolved when idle. */
  #sending: Promise<void> = HANDED_OFF;
  #pumping = false;

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
    if (items.length === 0) return HANDED_OFF;
    const payload = JSON.stringify(items);
    const last = this.#waiting.length - 1;
    // Appended to the batch that waits last, as one JSON array: the order of items stays the order of publishing.
    if (last >= 0 && this.#waiting[last].length + payload.length <= MERGED_MAX_CHARS) {
      this.#waiting[last] = `${this.#waiting[last].slice(0, -1)},${payload.slice(1)}`;
    } else {
      this.#waiting.push(payload);
    }
    if (!this.#pumping) this.#sending = this.#pump();
    // Not awaited by the write that caused it: waiting for the NOTIFY would hold every answer for
    // a round trip more (docs/realtime.md, "Across processes").
    return HANDED_OFF;
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      await this.#started;
      for (let payload = this.#waiting.shift(); payload !== undefined; payload = this.#waiting.shift()) {
        try {
          await this.channel.send(payload);
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  async close(): Promise<void> {
    // A close that comes while the listener is still being opened waits for it, then closes it too.
    await this.#started;
    await this.#sending;
    await this.channel.close();
  }
}
