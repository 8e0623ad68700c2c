import type { DeliveredMessage } from './realtime-message.js';

/**
 * The most recent events, for clients that resume with Last-Event-ID (docs/realtime.md,
 * "Server-Sent Events"). Every process receives every event under the same id, so a stream may
 * resume on any process as long as the id is still among the last `capacity` events.
 */
export class EventRing {
  readonly #items: (DeliveredMessage | undefined)[];
  readonly #index = new Map<string, number>();
  #next = 0;
  #count = 0;

  constructor(private readonly capacity: number) {
    this.#items = new Array<DeliveredMessage | undefined>(capacity);
  }

  push(message: DeliveredMessage): void {
    const slot = this.#next % this.capacity;
    const old = this.#items[slot];
    if (old) this.#index.delete(old.id);
    this.#items[slot] = message;
    this.#index.set(message.id, this.#next);
    this.#next += 1;
    this.#count = Math.min(this.#count + 1, this.capacity);
  }

  /** The events after `id`, oldest first; undefined when `id` is unknown or has left the window. */
  after(id: string): DeliveredMessage[] | undefined {
    const position = this.#index.get(id);
    if (position === undefined) return undefined;
    const out: DeliveredMessage[] = [];
    for (let p = position + 1; p < this.#next; p++) out.push(this.#items[p % this.capacity] as DeliveredMessage);
    return out;
  }

  /** The id of the newest event, if any. */
  get lastId(): string | undefined {
    return this.#count === 0 ? undefined : this.#items[(this.#next - 1) % this.capacity]?.id;
  }
}
