import { io, type Socket } from 'socket.io-client';
import type { TestSite } from './test-site.js';

/** One event a client received, in order. */
export interface Received {
  readonly event: string;
  readonly args: unknown[];
}

/** A connected Socket.IO client that records every event it gets. */
export interface RecordingSocket {
  readonly socket: Socket;
  readonly received: Received[];
  /** Resolves with the first recorded event (old or new) that matches; rejects when the socket disconnects first or after `timeoutMs`. */
  next(event: string, match?: (payload: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Resolves when the server disconnects the socket. */
  disconnected(timeoutMs?: number): Promise<string>;
  /** Emits and waits for the acknowledgement. */
  ask(event: string, ...args: unknown[]): Promise<{ ok: boolean; error?: string }>;
  close(): void;
}

/** Options of a connection attempt. */
export interface ConnectOptions {
  readonly namespace?: string;
  readonly headers?: Record<string, string>;
  readonly auth?: Record<string, unknown>;
  readonly transports?: ('polling' | 'websocket')[];
  /** The loopback address to connect from (127.0.0.2 is another client than 127.0.0.1); WebSocket only. */
  readonly localAddress?: string;
}

/** Starts listening on an ephemeral port of the loopback interface (once) and returns the base URL. */
export async function listenOnce(t: TestSite): Promise<string> {
  const address = t.app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const bound = t.app.server.address();
  if (!bound || typeof bound !== 'object') throw new Error('not listening');
  return `http://127.0.0.1:${bound.port}`;
}

/**
 * Connects to `<base>/<namespace>` (default: the host name, 127.0.0.1, as frappe-ui does in
 * development) and resolves once connected; rejects with the server's refusal message.
 */
export function connectSocket(base: string, options: ConnectOptions = {}): Promise<RecordingSocket> {
  const namespace = options.namespace ?? '/127.0.0.1';
  const socket = io(`${base}${namespace}`, {
    transports: options.transports ?? ['websocket'],
    extraHeaders: options.headers ?? {},
    auth: options.auth ?? {},
    reconnection: false,
    forceNew: true,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  let disconnectReason: string | undefined;
  socket.onAny((event: string, ...args: unknown[]) => {
    received.push({ event, args });
    for (const wake of waiters) wake();
  });
  socket.on('disconnect', (reason) => {
    disconnectReason = reason;
    for (const wake of waiters) wake();
  });
  const recording: RecordingSocket = {
    socket,
    received,
    next(event, match = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find((r) => r.event === event && match(r.args[0]));
          if (found) {
            done();
            resolve(found.args[0]);
          } else if (disconnectReason !== undefined) {
            done();
            reject(new Error(`disconnected (${disconnectReason}) before ${event}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${event} within ${timeoutMs} ms; got ${JSON.stringify(received)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    disconnected(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (disconnectReason === undefined) return;
          done();
          resolve(disconnectReason);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`still connected after ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    ask(event, ...args) {
      return socket.timeout(10_000).emitWithAck(event, ...args);
    },
    close() {
      socket.disconnect();
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(recording));
    socket.once('connect_error', (err) => {
      socket.disconnect();
      reject(err);
    });
  });
}

/** The refusal message of a connection the server turns away. */
export async function refusalOf(base: string, options: ConnectOptions): Promise<string> {
  try {
    const s = await connectSocket(base, options);
    s.close();
    return 'connected';
  } catch (err) {
    return (err as Error).message;
  }
}
