import { isIP } from 'node:net';
import { explainSmtpError, type SmtpFailure } from './smtp-failure.js';
import type { SmtpSettings } from './smtp-settings.js';

/** One recipient the server refused at RCPT TO, with its reply. */
export interface RefusedRecipient {
  readonly address: string;
  readonly reply: string;
  readonly responseCode: number | undefined;
  /** 4xx: may be accepted later. */
  readonly temporary: boolean;
}

/** The outcome of handing one message to the server. */
export type SmtpOutcome =
  | { readonly ok: true; readonly accepted: readonly string[]; readonly refused: readonly RefusedRecipient[]; readonly response: string }
  | { readonly ok: false; readonly failure: SmtpFailure; readonly refused: readonly RefusedRecipient[] };

/** Timeouts of one exchange: a dead server fails the attempt, it never holds a worker for long. */
const CONNECT_MS = 15_000;
const SOCKET_MS = 60_000;

/** How long a pooled connection set outlives its last message. */
const POOL_IDLE_MS = 2_000;

/**
 * nodemailer, imported by the first send: about 3 MB of heap that a server which sends no mail
 * would keep for nothing (docs/benchmarks.md "Modules loaded on first use").
 */
type CreateTransport = typeof import('nodemailer').createTransport;

/** An SMTP transport for `settings` (docs/mail.md "Email Account"); `pool` keeps connections open for the next messages. */
function transportFor(createTransport: CreateTransport, settings: SmtpSettings, pool: boolean) {
  return createTransport({
    pool,
    maxConnections: 4,
    maxMessages: 100,
    host: settings.host,
    port: settings.port,
    secure: settings.implicitTls,
    requireTLS: settings.startTls,
    // Without Use TLS the reference speaks plain SMTP; fw still upgrades when the server offers
    // STARTTLS, but then the certificate must verify unless Validate SSL Certificate is off.
    tls: { rejectUnauthorized: settings.validateCertificate, servername: isIP(settings.host) === 0 ? settings.host : undefined },
    auth: settings.auth ? { user: settings.auth.user, pass: settings.auth.pass } : undefined,
    connectionTimeout: CONNECT_MS,
    greetingTimeout: CONNECT_MS,
    socketTimeout: SOCKET_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

interface Pool {
  readonly transport: ReturnType<typeof transportFor>;
  inFlight: number;
  idle: NodeJS.Timeout | undefined;
}

/**
 * The queue's transports, one per server and login: a batch of queued mails reuses a few open
 * connections instead of a connect, greeting and login per mail (docs/benchmarks.md "Mail"). A
 * pool is closed once idle for {@link POOL_IDLE_MS}, so a changed Email Account or a stopped
 * process is never held by it for long.
 */
const pools = new Map<string, Pool>();

function poolFor(createTransport: CreateTransport, settings: SmtpSettings): Pool {
  const key = JSON.stringify([settings.host, settings.port, settings.implicitTls, settings.startTls, settings.validateCertificate, settings.auth ?? null]);
  let pool = pools.get(key);
  if (!pool) {
    pool = { transport: transportFor(createTransport, settings, true), inFlight: 0, idle: undefined };
    pools.set(key, pool);
  }
  const entry = pool;
  clearTimeout(entry.idle);
  entry.inFlight += 1;
  return entry;
}

function releasePool(pool: Pool): void {
  pool.inFlight -= 1;
  if (pool.inFlight > 0) return;
  pool.idle = setTimeout(() => {
    for (const [key, p] of pools) if (p === pool) pools.delete(key);
    pool.transport.close();
  }, POOL_IDLE_MS);
  pool.idle.unref();
}

function refusedOf(errors: unknown): RefusedRecipient[] {
  if (!Array.isArray(errors)) return [];
  return errors.map((e: { recipient?: string; response?: string; responseCode?: number; message?: string }) => ({
    address: String(e.recipient ?? ''),
    reply: String(e.response ?? e.message ?? ''),
    responseCode: e.responseCode,
    temporary: e.responseCode !== undefined && e.responseCode < 500,
  }));
}

/**
 * Hands the stored MIME text `raw` to the server for `to` (the envelope; Bcc recipients are only
 * here). Never throws: a failure is explained with the step that failed (smtp-failure.ts). With
 * `pooled`, the connection comes from the queue's pools; otherwise (a test mail, which reports
 * each step of a fresh exchange) it is opened and closed for this message.
 */
export async function sendRawMessage(
  settings: SmtpSettings,
  envelope: { from: string; to: readonly string[] },
  raw: string | Buffer,
  options: { pooled?: boolean } = {},
): Promise<SmtpOutcome> {
  const { createTransport } = await import('nodemailer');
  const pool = options.pooled ? poolFor(createTransport, settings) : undefined;
  const transport = pool ? pool.transport : transportFor(createTransport, settings, false);
  const server = `${settings.host}:${settings.port}`;
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [...envelope.to] }, raw });
    const refused = refusedOf((info as { rejectedErrors?: unknown }).rejectedErrors);
    return { ok: true, accepted: (info.accepted ?? []).map(String), refused, response: String(info.response ?? '') };
  } catch (err) {
    const refused = refusedOf((err as { rejectedErrors?: unknown }).rejectedErrors);
    return { ok: false, failure: explainSmtpError(err, server), refused };
  } finally {
    if (pool) releasePool(pool);
    else transport.close();
  }
}
