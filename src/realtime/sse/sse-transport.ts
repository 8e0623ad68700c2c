import { PassThrough } from 'node:stream';
import type { Delivery, Subscriber, SubscriberTransport } from '../subscriber.js';

/** Bytes a stream may have waiting, per message the limit allows (an event is ~100-300 bytes). */
const BYTES_PER_MESSAGE = 512;

/** One event in the text/event-stream format; JSON holds no raw line breaks, so `data` is one line. */
export function formatEvent(event: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n\n`;
}

/** A Server-Sent Events response as a hub subscriber. */
export class StreamSubscriber implements Subscriber {
  readonly rooms = new Set<string>();
  readonly stream = new PassThrough();
  #closed = false;

  constructor(
    readonly id: string,
    readonly user: string,
    readonly sid: string | undefined,
    readonly viaToken: boolean,
    readonly authorization: string | undefined,
    readonly address: string,
    readonly transport: SubscriberTransport,
  ) {}

  /** Roughly how many messages wait to be written to the client. */
  backlog(): number {
    return Math.floor((this.stream.readableLength + this.stream.writableLength) / BYTES_PER_MESSAGE);
  }

  write(text: string): void {
    if (!this.#closed) this.stream.write(text);
  }

  close(reason: string): void {
    if (this.#closed) return;
    this.write(formatEvent('fw_disconnect', { reason }));
    this.#closed = true;
    this.stream.end();
  }
}

/** Writes each event once formatted to every stream that should get it. */
export class StreamTransport implements SubscriberTransport {
  send(deliveries: readonly Delivery[]): void {
    for (const { subscribers, message } of deliveries) {
      const text = formatEvent(message.event, message.message, message.id || undefined);
      for (const s of subscribers) (s as StreamSubscriber).write(text);
    }
  }
}
