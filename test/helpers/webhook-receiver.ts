import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on 127.0.0.1 (or ::1): records requests and answers with the statuses it is told. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Answers for the next requests, in order; 200 once they run out. */
  readonly answers: { status: number; headers?: Record<string, string>; body?: string }[] = [];
  #server: Server | undefined;
  #port = 0;
  #host = '127.0.0.1';

  /** Starts listening, on `port` when given (to come back up where a webhook points), on loopback `host`. */
  async start(port = 0, host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<this> {
    this.#host = host;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = this.answers.shift() ?? { status: 200, body: 'ok' };
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    return this;
  }

  get port(): number {
    return this.#port;
  }

  url(path = '/hook'): string {
    return `http://${this.#host.includes(':') ? `[${this.#host}]` : this.#host}:${this.#port}${path}`;
  }

  /** Stops listening (the port then refuses connections). */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
