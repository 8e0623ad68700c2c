import { connect, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with connections. */
export type ProxyMode = 'forward' | 'blackhole' | 'down';

/**
 * A TCP proxy in front of a server (PostgreSQL), for outage tests that must not stop the real
 * server: `forward` passes bytes both ways, `blackhole` accepts connections and never answers
 * (a hung network), `down` refuses them (a stopped server). Leaving `forward` cuts every open
 * connection, as a server restart would.
 */
export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #mode: ProxyMode = 'down';
  #port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  /** A forwarding proxy on a free port of 127.0.0.1. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.setMode('forward');
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  get mode(): ProxyMode {
    return this.#mode;
  }

  /** Switches mode; connections open under the old mode are cut. */
  async setMode(mode: ProxyMode): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    this.#mode = mode;
    if (mode === 'down') return this.#stopListening();
    if (!this.#server) await this.#listen();
  }

  /** Cuts everything and stops listening. */
  close(): Promise<void> {
    return this.setMode('down');
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#sockets.delete(socket));
  }

  #accept(client: Socket): void {
    this.#track(client);
    if (this.#mode !== 'forward') return; // blackhole: hold the connection, say nothing
    const upstream = connect(this.#target.port, this.#target.host);
    this.#track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  #listen(): Promise<void> {
    const server = createServer((socket) => this.#accept(socket));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // Back on the same port, so the URL the site was given keeps working.
      server.listen(this.#port, '127.0.0.1', () => {
        this.#port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  #stopListening(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
