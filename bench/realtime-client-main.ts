// One client process of the realtime bench (docs/benchmarks.md, "Realtime"): holds many
// Socket.IO clients, records when each `list_update` arrives, and hands the receipts to the bench
// on request. A process apart from the server's, pinned to another core, so that decoding the
// events costs the server nothing.
import { io, type Socket } from 'socket.io-client';
import { LeanSocket } from './realtime-lean-socket.js';
import { type FromRealtimeClient, monotonicMs, type RealtimeClientKind, type Receipts, type ToRealtimeClient } from './realtime-protocol.js';

/** What the bench needs of a client socket, whichever kind it is. */
interface BenchSocket {
  readonly connected: Promise<void>;
  onListUpdate(listener: (message: { name: string }) => void): void;
  subscribe(doctype: string): Promise<unknown>;
  disconnect(): void;
}

/** A socket.io-client socket, as browsers' clients run it. */
function socketIoClient(url: string, auth: string): BenchSocket {
  const socket: Socket = io(url, { transports: ['websocket'], extraHeaders: { authorization: auth }, reconnection: false, forceNew: true });
  return {
    connected: new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    }),
    onListUpdate: (listener) => socket.on('list_update', listener),
    subscribe: (doctype) => socket.timeout(60_000).emitWithAck('doctype_subscribe', doctype),
    disconnect: () => socket.disconnect(),
  };
}

/** The bench's light client (realtime-lean-socket.ts). */
function leanClient(url: string, auth: string): BenchSocket {
  const socket = new LeanSocket(url, auth);
  return {
    connected: socket.connected,
    onListUpdate: (listener) => socket.onEvent((event, payload) => event === 'list_update' && listener(payload as { name: string })),
    subscribe: (doctype) => socket.emitWithAck('doctype_subscribe', doctype),
    disconnect: () => socket.disconnect(),
  };
}

function send(message: FromRealtimeClient): void {
  process.send?.(message);
}

/** Receipts as they arrive, in arrays that double when full. */
class ReceiptLog {
  count = 0;
  #doc = new Uint32Array(1 << 16);
  #ordinal = new Uint32Array(1 << 16);
  #at = new Float64Array(1 << 16);

  add(doc: number, ordinal: number, at: number): void {
    if (this.count === this.#at.length) {
      const grow = <T extends Uint32Array | Float64Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.#doc = grow(this.#doc, (n) => new Uint32Array(n));
      this.#ordinal = grow(this.#ordinal, (n) => new Uint32Array(n));
      this.#at = grow(this.#at, (n) => new Float64Array(n));
    }
    this.#doc[this.count] = doc;
    this.#ordinal[this.count] = ordinal;
    this.#at[this.count] = at;
    this.count += 1;
  }

  /** The receipts so far; the log starts empty again. */
  take(): Receipts {
    const n = this.count;
    const receipts = { count: n, doc: this.#doc.slice(0, n), ordinal: this.#ordinal.slice(0, n), at: this.#at.slice(0, n) };
    this.count = 0;
    return receipts;
  }
}

const sockets: BenchSocket[] = [];
const log = new ReceiptLog();
let doctype = '';
let lastReceipt = 0;
let unknownNames = 0;

/** Connects `count` sockets, `batch` at a time, each counting its events per document. */
async function connect(client: RealtimeClientKind, url: string, auth: string, count: number, names: readonly string[]): Promise<void> {
  const index = new Map(names.map((name, i) => [name, i]));
  const batch = 50;
  for (let i = 0; i < count; i += batch) {
    const group = Array.from({ length: Math.min(batch, count - i) }, () => {
      const socket = client === 'lean' ? leanClient(url, auth) : socketIoClient(url, auth);
      const seen = new Uint32Array(names.length);
      socket.onListUpdate((m) => {
        const at = monotonicMs();
        lastReceipt = at;
        const doc = index.get(m.name);
        if (doc === undefined) {
          unknownNames += 1;
          return;
        }
        log.add(doc, seen[doc]++, at);
      });
      return socket;
    });
    await Promise.all(group.map((s) => s.connected));
    sockets.push(...group);
  }
}

/** Waits until `expected` receipts are in, or none came for `timeoutMs`, then hands them over. */
function collect(expected: number, timeoutMs: number): void {
  const since = monotonicMs();
  const timer = setInterval(() => {
    const quiet = monotonicMs() - Math.max(lastReceipt, since);
    if (log.count < expected && quiet < timeoutMs) return;
    clearInterval(timer);
    send({ type: 'receipts', receipts: log.take(), unknown: unknownNames });
    unknownNames = 0;
  }, 20);
}

async function handle(message: ToRealtimeClient): Promise<void> {
  switch (message.type) {
    case 'connect':
      doctype = message.doctype;
      await connect(message.client, message.url, message.auth, message.sockets, message.names);
      return send({ type: 'connected', sockets: sockets.length });
    case 'subscribe':
      await Promise.all(sockets.map((s) => s.subscribe(doctype)));
      return send({ type: 'subscribed', sockets: sockets.length });
    case 'clock':
      return send({ type: 'clock', skewMs: monotonicMs() - message.sentAt });
    case 'collect':
      return collect(message.expected, message.timeoutMs);
    case 'exit':
      for (const s of sockets) s.disconnect();
      process.exit(0);
  }
}

process.on('message', (message: ToRealtimeClient) => {
  handle(message).catch((err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
