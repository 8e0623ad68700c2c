import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

/** One message the sink accepted: the envelope, the raw text and its parsed form. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly user: string | undefined;
  readonly raw: string;
  readonly parsed: ParsedMail;
  readonly secure: boolean;
}

/** How the sink misbehaves, for fault tests. */
export interface SinkFaults {
  /** Addresses refused at RCPT TO with this reply code (550 permanent, 450 temporary). */
  refuse?: Map<string, number>;
  /** Cut the connection after reading part of the next N messages' DATA. */
  cutDataTimes?: number;
}

/** Options of an SMTP sink. */
export interface SinkOptions {
  /** AUTH required with this user and password (PLAIN/LOGIN). */
  readonly auth?: { user: string; pass: string };
  /** Offer STARTTLS (smtp-server's built-in self-signed certificate) and require it before AUTH. */
  readonly startTls?: boolean;
}

/**
 * A real SMTP listener on 127.0.0.1 (smtp-server) whose messages are parsed with mailparser, for
 * tests of fw's mail: AUTH, optional STARTTLS with a self-signed certificate, refused recipients,
 * a connection cut mid-DATA, and stop/start on the same port (a server down, then up).
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  readonly faults: SinkFaults = { refuse: new Map(), cutDataTimes: 0 };
  /** Failed AUTH attempts seen. */
  authFailures = 0;
  #server: SMTPServer | undefined;
  #port = 0;
  readonly #options: SinkOptions;
  readonly #waiters: { count: number; resolve: () => void }[] = [];

  constructor(options: SinkOptions = {}) {
    this.#options = options;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens (again) on the same port, or a free one the first time. */
  async start(): Promise<this> {
    const opts = this.#options;
    const server = new SMTPServer({
      secure: false,
      authOptional: !opts.auth,
      allowInsecureAuth: !opts.startTls,
      disabledCommands: opts.startTls ? [] : ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, cb) => {
        if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
        this.authFailures++;
        return cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onRcptTo: (address: SMTPServerAddress, _session, cb) => {
        const code = this.faults.refuse?.get(address.address.toLowerCase());
        if (code) return cb(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: code }));
        return cb();
      },
      onData: (stream, session: SMTPServerSession, cb) => {
        if ((this.faults.cutDataTimes ?? 0) > 0) {
          this.faults.cutDataTimes!--;
          stream.once('data', () => this.#cut(session));
          stream.on('error', () => {});
          stream.resume();
          return;
        }
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then(
            (parsed) => {
              this.received.push({
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
                user: session.user as string | undefined,
                raw,
                parsed,
                secure: session.secure,
              });
              cb();
              this.#notify();
            },
            (err: Error) => cb(err),
          );
        });
      },
    });
    server.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.server.address() as { port: number }).port;
    this.#server = server;
    return this;
  }

  /** Stops listening and drops open connections (the port stays reserved for {@link start}). */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    for (const c of (server as unknown as { connections: Set<{ _socket?: { destroy(): void } }> }).connections) c._socket?.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `count` messages in total were received. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  #notify(): void {
    for (const w of [...this.#waiters]) {
      if (this.received.length >= w.count) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  #cut(session: SMTPServerSession): void {
    const connections = (this.#server as unknown as { connections: Set<{ session?: { id: string }; _socket?: { destroy(): void } }> }).connections;
    for (const c of connections) if (c.session?.id === session.id) c._socket?.destroy();
  }
}
