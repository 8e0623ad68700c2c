import { isIP } from 'node:net';
import { createTransport } from 'nodemailer';
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

/** A one-message SMTP transport for `settings` (docs/mail.md "Email Account"). */
function transportFor(settings: SmtpSettings) {
  return createTransport({
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
 * here). Never throws: a failure is explained with the step that failed (smtp-failure.ts).
 */
export async function sendRawMessage(settings: SmtpSettings, envelope: { from: string; to: readonly string[] }, raw: string | Buffer): Promise<SmtpOutcome> {
  const transport = transportFor(settings);
  const server = `${settings.host}:${settings.port}`;
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [...envelope.to] }, raw });
    const refused = refusedOf((info as { rejectedErrors?: unknown }).rejectedErrors);
    return { ok: true, accepted: (info.accepted ?? []).map(String), refused, response: String(info.response ?? '') };
  } catch (err) {
    const refused = refusedOf((err as { rejectedErrors?: unknown }).rejectedErrors);
    return { ok: false, failure: explainSmtpError(err, server), refused };
  } finally {
    transport.close();
  }
}
