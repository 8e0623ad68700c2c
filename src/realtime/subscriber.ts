import type { DeliveredMessage } from './realtime-message.js';

/**
 * One live client of the hub: a Socket.IO socket or a Server-Sent Events stream. The hub keeps its
 * rooms; the transport writes to it.
 */
export interface Subscriber {
  readonly id: string;
  readonly user: string;
  /** The login session it came with (cookie authentication), so a logout can end it. */
  readonly sid: string | undefined;
  /** True when it came with an API key and secret, so replacing the secret ends it. */
  readonly viaToken: boolean;
  /** Those credentials (the Authorization value), checked again from time to time; undefined for sessions and Guests. */
  readonly authorization: string | undefined;
  /** The client's address (behind trusted proxies, the one they report): Guests are counted per address. */
  readonly address: string;
  /** The rooms it is in, owned by the hub. */
  readonly rooms: Set<string>;
  readonly transport: SubscriberTransport;
  /** Messages (or, for streams, a measure of bytes) waiting to be written to the client. */
  backlog(): number;
  /** Ends the connection; the transport then removes it from the hub. */
  close(reason: string): void;
}

/** One message and the subscribers (of one transport) that receive it. */
export interface Delivery {
  readonly subscribers: readonly Subscriber[];
  readonly message: DeliveredMessage;
}

/**
 * How messages reach subscribers of one kind, several at once where the kind allows. `send` takes
 * every delivery of a run of events in their order, so a transport may write what one client gets
 * of them at once (docs/benchmarks.md, "Realtime"); each client must receive its messages in order.
 */
export interface SubscriberTransport {
  send(deliveries: readonly Delivery[]): void;
}
