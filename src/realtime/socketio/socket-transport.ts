import type { Namespace, Socket } from 'socket.io';
import type { DeliveredMessage } from '../realtime-message.js';
import type { Subscriber, SubscriberTransport } from '../subscriber.js';

/** The engine socket's queue of packets not yet written (not in engine.io's public types). */
interface EngineQueue {
  readonly writeBuffer?: readonly unknown[];
}

/** A Socket.IO socket as a hub subscriber. */
export class SocketSubscriber implements Subscriber {
  readonly rooms = new Set<string>();

  constructor(
    readonly socket: Socket,
    readonly user: string,
    readonly sid: string | undefined,
    readonly viaToken: boolean,
    readonly authorization: string | undefined,
    readonly address: string,
    readonly transport: SocketTransport,
  ) {}

  get id(): string {
    return this.socket.id;
  }

  backlog(): number {
    return (this.socket.conn as unknown as EngineQueue).writeBuffer?.length ?? 0;
  }

  close(reason: string): void {
    if (!this.socket.connected) return;
    this.socket.emit('fw_disconnect', { reason });
    this.socket.disconnect(true);
  }
}

/**
 * Sends one event to many sockets as one Socket.IO broadcast per namespace, so the packet is
 * encoded once however many sockets receive it.
 */
export class SocketTransport implements SubscriberTransport {
  send(subscribers: readonly Subscriber[], message: DeliveredMessage): void {
    const byNamespace = new Map<Namespace, string[]>();
    for (const s of subscribers) {
      const socket = (s as SocketSubscriber).socket;
      const ids = byNamespace.get(socket.nsp);
      if (ids) ids.push(socket.id);
      else byNamespace.set(socket.nsp, [socket.id]);
    }
    for (const [nsp, ids] of byNamespace) nsp.to(ids).emit(message.event, message.message);
  }
}
