// The realtime bench's light client (docs/benchmarks.md, "Realtime"): the Socket.IO 5 / Engine.IO 4
// protocol over a plain `ws` WebSocket, the few packets the bench needs and nothing else, so that
// 1,000 clients on one core cost that core less than socket.io-client does and the bench measures
// the server. It reads what a socket.io-client reads: the same frames, one WebSocket message each.
import WebSocket from 'ws';

/** Socket.IO packets of a namespace (`4` is Engine.IO's "message", then Socket.IO's type). */
const CONNECT = '40';
const CONNECT_ERROR = '44';
const EVENT = '42';
const ACK = '43';
/** Engine.IO's open, ping and pong packets. */
const OPEN = '0';
const PING = '2';
const PONG = '3';

/** One client of the namespace at `url`'s path, authenticated by the Authorization header `auth`. */
export class LeanSocket {
  readonly #ws: WebSocket;
  /** `/<namespace>,`: the prefix of every Socket.IO packet of a namespace other than `/`. */
  readonly #nsp: string;
  readonly #acks = new Map<number, (args: unknown[]) => void>();
  #nextAck = 0;
  #onEvent: (event: string, payload: unknown) => void = () => undefined;
  readonly connected: Promise<void>;

  constructor(url: string, auth: string) {
    const target = new URL(url);
    this.#nsp = target.pathname === '/' ? '' : `${target.pathname},`;
    const ws = new WebSocket(`ws://${target.host}/socket.io/?EIO=4&transport=websocket`, { headers: { authorization: auth }, perMessageDeflate: false });
    this.#ws = ws;
    this.connected = new Promise((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const text = data.toString('utf8');
        if (text === PING) return ws.send(PONG);
        if (text.startsWith(OPEN)) return ws.send(`${CONNECT}${this.#nsp}`);
        const head = text.slice(0, 2);
        const body = text.startsWith(this.#nsp, 2) ? text.slice(2 + this.#nsp.length) : undefined;
        if (body === undefined) return;
        if (head === EVENT) {
          const [event, payload] = JSON.parse(body) as [string, unknown];
          this.#onEvent(event, payload);
        } else if (head === ACK) {
          const bracket = body.indexOf('[');
          const id = Number(body.slice(0, bracket));
          this.#acks.get(id)?.(JSON.parse(body.slice(bracket)) as unknown[]);
          this.#acks.delete(id);
        } else if (head === CONNECT) resolve();
        else if (head === CONNECT_ERROR) reject(new Error(`connect_error: ${body}`));
      });
    });
  }

  /** Hears every event the server emits to this socket. */
  onEvent(listener: (event: string, payload: unknown) => void): void {
    this.#onEvent = listener;
  }

  /** Emits `event` with `args` and resolves with the server's acknowledgement. */
  emitWithAck(event: string, ...args: unknown[]): Promise<unknown[]> {
    const id = this.#nextAck++;
    return new Promise((resolve) => {
      this.#acks.set(id, resolve);
      this.#ws.send(`${EVENT}${this.#nsp}${id}${JSON.stringify([event, ...args])}`);
    });
  }

  disconnect(): void {
    this.#ws.close();
  }
}
