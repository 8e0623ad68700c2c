import type { Namespace, Socket } from 'socket.io';
import type { DeliveredMessage } from '../realtime-message.js';
import { type BroadcastFrame, encodeBroadcast, holdsBinary } from './broadcast-frame.js';
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

/** Engine.IO's write options with the frame its WebSocket transport sends as it is (not in engine.io's public types). */
interface PreEncodedWrite {
  readonly wsPreEncodedFrame: readonly Buffer[];
}

/**
 * Sends one event to many sockets, encoded once per namespace however many sockets receive it:
 * each socket's Engine.IO connection gets the same packet and, over WebSocket, the same ready
 * frame, one write per socket (docs/benchmarks.md, "Realtime"). Payloads holding binary data go as a
 * Socket.IO broadcast, whose encoder sends them as attachments.
 */
export class SocketTransport implements SubscriberTransport {
  send(subscribers: readonly Subscriber[], message: DeliveredMessage): void {
    if (holdsBinary(message.message)) {
      this.#broadcast(subscribers, message);
      return;
    }
    const encoded = new Map<string, { frame: BroadcastFrame; options: PreEncodedWrite }>();
    for (const s of subscribers) {
      const socket = (s as SocketSubscriber).socket;
      if (!socket.connected) continue;
      const nsp = socket.nsp.name;
      let ready = encoded.get(nsp);
      if (!ready) {
        const frame = encodeBroadcast(nsp, message.event, [message.message]);
        ready = { frame, options: { wsPreEncodedFrame: [frame.frame] } };
        encoded.set(nsp, ready);
      }
      socket.conn.write(ready.frame.packet, ready.options as object);
    }
  }

  #broadcast(subscribers: readonly Subscriber[], message: DeliveredMessage): void {
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
