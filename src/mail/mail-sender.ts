import { storedDatetime } from '../datetime/stored-datetime.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database, Queryable } from '../storage/database.js';
import type { MailConfig } from './mail-config.js';
import { readMailSettings } from './mail-settings.js';
import { claimMail, loadMail, markRecipient, setMailState, type QueueScope, type QueuedMail } from './queue-store.js';
import type { SmtpFailure } from './smtp-failure.js';
import { sendRawMessage, type SmtpOutcome } from './smtp-send.js';
import { resolveSmtpSettings } from './smtp-settings.js';

/** The job that sends one Email Queue row. */
export const SEND_JOB = 'fw.mail.send';

/** What sending needs from the site. */
export interface SenderDeps {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly jobs: JobQueue;
  readonly timeZone: () => string;
  readonly encryptionKey: string;
  readonly config: MailConfig;
  readonly random?: () => number;
}

/** Waits before retry 1, 2, ...; the last repeats (docs/mail.md "Retries"). */
const RETRY_WAITS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000] as const;

/** The wait before retry `retry` (1-based), with ±10 % jitter so mails that failed together spread out. */
export function mailRetryDelay(retry: number, random: () => number = Math.random): number {
  const base = RETRY_WAITS_MS[Math.min(retry, RETRY_WAITS_MS.length) - 1]!;
  return Math.round(base * (0.9 + 0.2 * random()));
}

/** The job id of a mail's send: one per attempt, so a flush never queues a second copy of a waiting send. */
export function sendJobId(name: string, retry: number): string {
  return `mail:${name}:${retry}`;
}

/** Registers the send job on the site's queue. */
export function registerSendJob(deps: SenderDeps): void {
  // The job itself fails only on database trouble (then the job queue retries it); SMTP outcomes are recorded on the row.
  deps.jobs.register(SEND_JOB, (args: { name?: unknown; force?: unknown }) => sendQueuedMail(deps, String(args.name ?? ''), args.force === true), {
    timeout: 180_000,
    maxRetries: 3,
  });
}

/**
 * One attempt at one queued mail (docs/mail.md "The queue"): claim it (Sending), hand the stored
 * MIME text to the server for the recipients not sent yet, then record per recipient. A temporary
 * failure goes back to Not Sent (Partially Sent when some got it) with `retry` + 1 and the next
 * attempt scheduled, until `email_retry_limit`; then Error with the server's reply kept. A 5xx
 * refusal marks that recipient Error and is never retried.
 */
export async function sendQueuedMail(deps: SenderDeps, name: string, force = false): Promise<void> {
  const { db } = deps;
  const scope = (q: Queryable): QueueScope => ({ q, dialect: db.dialect, metas: deps.metas });
  const stamp = () => storedDatetime(deps.jobs.clock.now(), deps.timeZone());
  const settings = await db.read((q) => readMailSettings(q, db.dialect));
  if (settings.suspended) return;
  if (!(await db.transaction((q) => claimMail(scope(q), name, stamp(), force)))) return;
  const mail = await db.read((q) => loadMail(scope(q), name));
  if (!mail) return;
  const pending = mail.recipients.filter((r) => r.status === 'Not Sent');
  let outcome: SmtpOutcome;
  if (pending.length === 0) {
    outcome = { ok: true, accepted: [], refused: [], response: '' };
  } else {
    try {
      const smtp = await db.read((q) =>
        resolveSmtpSettings({ q, dialect: db.dialect, metas: deps.metas, encryptionKey: deps.encryptionKey, config: deps.config }, mail.emailAccount),
      );
      outcome = await sendRawMessage(smtp, { from: smtp.fromAddress, to: pending.map((r) => r.recipient) }, mail.message, { pooled: true });
    } catch (err) {
      // No usable account: temporary, so configuring one lets the retries through.
      const failure: SmtpFailure = {
        stage: 'config',
        message: `The outgoing mail settings are incomplete: ${(err as Error).message}`,
        temporary: true,
        responseCode: undefined,
      };
      outcome = { ok: false, failure, refused: [] };
    }
  }
  await db.transaction((q) => record(deps, scope(q), mail, pending, outcome, settings.retryLimit, stamp()));
}

async function record(
  deps: SenderDeps,
  s: QueueScope,
  mail: QueuedMail,
  pending: QueuedMail['recipients'],
  outcome: SmtpOutcome,
  retryLimit: number,
  nowText: string,
): Promise<void> {
  const refusedBy = new Map(outcome.refused.map((r) => [r.address.toLowerCase(), r]));
  const accepted = new Set(outcome.ok ? outcome.accepted.map((a) => a.toLowerCase()) : []);
  let stillPending = 0;
  const refusals: string[] = [];
  for (const r of pending) {
    const key = r.recipient.toLowerCase();
    const refused = refusedBy.get(key);
    if (refused && !refused.temporary) {
      await markRecipient(s, r.name, 'Error', refused.reply, nowText);
      refusals.push(`${r.recipient}: ${refused.reply}`);
    } else if (outcome.ok && accepted.has(key)) {
      await markRecipient(s, r.name, 'Sent', null, nowText);
    } else {
      if (refused) await markRecipient(s, r.name, 'Not Sent', refused.reply, nowText);
      stillPending++;
    }
  }
  const anySent = mail.recipients.some((r) => r.status === 'Sent') || (outcome.ok && accepted.size > 0);
  const refusalText = refusals.length > 0 ? `Refused by the server: ${refusals.join('; ')}` : null;
  if (stillPending === 0) {
    await setMailState(s, mail.name, { status: anySent ? 'Sent' : 'Error', error: refusalText }, nowText);
    return;
  }
  const failure = outcome.ok ? undefined : outcome.failure;
  const reason =
    failure?.message ??
    outcome.refused
      .filter((r) => r.temporary)
      .map((r) => `${r.address}: ${r.reply}`)
      .join('; ');
  const error = [reason, refusalText].filter(Boolean).join('\n');
  const temporary = failure === undefined || failure.temporary;
  if (temporary && mail.retry < retryLimit) {
    const retry = mail.retry + 1;
    const at = deps.jobs.clock.now() + mailRetryDelay(retry, deps.random);
    await setMailState(
      s,
      mail.name,
      { status: anySent ? 'Partially Sent' : 'Not Sent', retry, error, sendAfter: storedDatetime(at, deps.timeZone()) },
      nowText,
    );
    await deps.jobs.enqueue(SEND_JOB, { name: mail.name }, { unit: { q: s.q }, at, jobId: sendJobId(mail.name, retry) });
    return;
  }
  await setMailState(s, mail.name, { status: 'Error', error }, nowText);
}
