import type { Socket as TcpSocket } from 'node:net';
import type { Namespace, Socket } from 'socket.io';
import type { DeliveredMessage } from '../realtime-message.js';
import { type BroadcastFrame, encodeBroadcast, holdsBinary } from './broadcast-frame.js';
import type { Delivery, Subscriber, SubscriberTransport } from '../subscriber.js';

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

/** The parts of an Engine.IO connection and its `ws` socket a direct write looks at (not in their public types). */
interface EngineInternals {
  readonly readyState: string;
  readonly writeBuffer?: readonly unknown[];
  readonly transport?: { readonly name: string; readonly socket?: { readonly readyState: number; readonly _socket?: TcpSocket } };
}

const WS_OPEN = 1;

/**
 * The TCP socket under `socket` when a frame may be written to it directly: the connection is open
 * over WebSocket, Engine.IO holds no packet back (what it sent is in the TCP socket already, so
 * order is kept) and the TCP socket has nothing waiting either (a client that does not read gets
 * its events through Engine.IO's queue, where the hub sees them pile up and drops it).
 */
function directSocket(socket: Socket): TcpSocket | undefined {
  const conn = socket.conn as unknown as EngineInternals;
  if (conn.readyState !== 'open' || (conn.writeBuffer?.length ?? 0) > 0) return undefined;
  const ws = conn.transport?.name === 'websocket' ? conn.transport.socket : undefined;
  const tcp = ws?.readyState === WS_OPEN ? ws._socket : undefined;
  return tcp?.writable && !tcp.destroyed && tcp.writableLength === 0 ? tcp : undefined;
}

/** One event encoded for one namespace, with the write options that hand its frame to Engine.IO. */
interface Encoded {
  readonly frame: BroadcastFrame;
  readonly options: PreEncodedWrite;
}

/** One message, encoded once for each namespace that asks for it. */
class NamespaceEncoder {
  readonly #byNamespace = new Map<string, Encoded>();

  constructor(private readonly message: DeliveredMessage) {}

  encoded(nsp: string): Encoded {
    let ready = this.#byNamespace.get(nsp);
    if (!ready) {
      const frame = encodeBroadcast(nsp, this.message.event, [this.message.message]);
      ready = { frame, options: { wsPreEncodedFrame: [frame.frame] } };
      this.#byNamespace.set(nsp, ready);
    }
    return ready;
  }
}

/** Writes `events` to `socket`, in one write to its TCP socket when it may be written directly, else through Engine.IO. */
function writeEvents(socket: Socket, events: readonly Encoded[]): void {
  const tcp = directSocket(socket);
  if (tcp) tcp.write(events.length === 1 ? events[0].frame.frame : Buffer.concat(events.map((e) => e.frame.frame)));
  else for (const e of events) socket.conn.write(e.frame.packet, e.options as object);
}

/**
 * Sends events to many sockets, each encoded once per namespace however many sockets receive it
 * (docs/benchmarks.md, "Realtime"). Over WebSocket, the ready frames go straight to the TCP socket
 * when nothing waits before them: what one socket gets of a run of events is one write, one
 * system call, with no Engine.IO packet and no `ws` message on the way. Otherwise (long polling,
 * an upgrade, a backlog) they go through Engine.IO, which sends the same frame. Payloads holding
 * binary data go as a Socket.IO broadcast, whose encoder sends them as attachments.
 */
export class SocketTransport implements SubscriberTransport {
  send(deliveries: readonly Delivery[]): void {
    // One event, the usual case: each socket is written as it comes, with nothing to gather.
    const single = deliveries.length === 1 ? deliveries[0] : undefined;
    if (single && !holdsBinary(single.message.message)) {
      const encoder = new NamespaceEncoder(single.message);
      for (const s of single.subscribers) {
        const socket = (s as SocketSubscriber).socket;
        if (socket.connected) writeEvents(socket, [encoder.encoded(socket.nsp.name)]);
      }
      return;
    }
    // What each socket gets of this run, in order; written at the end, or before a binary payload.
    const pending = new Map<Socket, Encoded[]>();
    const writePending = () => {
      for (const [socket, events] of pending) if (socket.connected) writeEvents(socket, events);
      pending.clear();
    };
    for (const { subscribers, message } of deliveries) {
      if (holdsBinary(message.message)) {
        writePending();
        this.#broadcast(subscribers, message);
        continue;
      }
      const encoder = new NamespaceEncoder(message);
      for (const s of subscribers) {
        const socket = (s as SocketSubscriber).socket;
        if (!socket.connected) continue;
        const ready = encoder.encoded(socket.nsp.name);
        const queued = pending.get(socket);
        if (queued) queued.push(ready);
        else pending.set(socket, [ready]);
      }
    }
    writePending();
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
