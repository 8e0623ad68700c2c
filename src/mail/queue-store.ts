import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { EMAIL_QUEUE, EMAIL_QUEUE_RECIPIENT } from './doctypes/index.js';

/** The reference's Email Queue statuses (docs/mail.md "The queue"). */
export type QueueStatus = 'Not Sent' | 'Sending' | 'Sent' | 'Partially Sent' | 'Error' | 'Expired' | 'Cancelled';

/** The statuses a send may start from. */
export const SENDABLE: readonly QueueStatus[] = ['Not Sent', 'Partially Sent'];

/** What the store reads and writes with. */
export interface QueueScope {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly metas: MetaRegistry;
}

/** A queued mail as the sender needs it. */
export interface QueuedMail {
  readonly name: string;
  readonly status: QueueStatus;
  readonly retry: number;
  readonly message: string;
  readonly emailAccount: string | undefined;
  readonly recipients: readonly { readonly name: string; readonly recipient: string; readonly status: string }[];
}

const tables = (s: QueueScope) => ({ queue: s.metas.get(EMAIL_QUEUE).tableName, recipient: s.metas.get(EMAIL_QUEUE_RECIPIENT).tableName });

/**
 * Takes a due mail for sending: Not Sent or Partially Sent, `send_after` empty or past (unless
 * `force`) becomes Sending in one UPDATE, so of two workers exactly one gets it.
 */
export async function claimMail(s: QueueScope, name: string, nowText: string, force: boolean): Promise<boolean> {
  let update = s.dialect.builder
    .updateTable(tables(s).queue)
    .set({ status: 'Sending', modified: nowText })
    .where('name', '=', name)
    .where('status', 'in', [...SENDABLE]);
  if (!force) update = update.where((eb) => eb.or([eb('send_after', 'is', null), eb('send_after', '<=', nowText)]));
  const { changes } = await s.q.run(update.compile());
  return changes === 1;
}

/** A queued mail with its recipients, or undefined when it is gone. */
export async function loadMail(s: QueueScope, name: string): Promise<QueuedMail | undefined> {
  const t = tables(s);
  const [row] = await s.q.all<Row>(
    s.dialect.builder.selectFrom(t.queue).select(['name', 'status', 'retry', 'message', 'email_account']).where('name', '=', name).compile(),
  );
  if (!row) return undefined;
  const recipients = await s.q.all<{ name: string; recipient: string; status: string }>(
    s.dialect.builder
      .selectFrom(t.recipient)
      .select(['name', 'recipient', 'status'])
      .where('parent', '=', name)
      .where('parenttype', '=', EMAIL_QUEUE)
      .orderBy('idx')
      .compile(),
  );
  return {
    name,
    status: String(row.status) as QueueStatus,
    retry: Number(row.retry ?? 0),
    message: String(row.message ?? ''),
    emailAccount: row.email_account ? String(row.email_account) : undefined,
    recipients: recipients.map((r) => ({ name: String(r.name), recipient: String(r.recipient), status: String(r.status ?? 'Not Sent') })),
  };
}

/** Sets one recipient row's status and error. */
export async function markRecipient(
  s: QueueScope,
  rowName: string,
  status: 'Sent' | 'Not Sent' | 'Error',
  error: string | null,
  nowText: string,
): Promise<void> {
  await s.q.run(s.dialect.builder.updateTable(tables(s).recipient).set({ status, error, modified: nowText }).where('name', '=', rowName).compile());
}

/** Writes a mail's status after an attempt (or a method). */
export async function setMailState(
  s: QueueScope,
  name: string,
  state: { status: QueueStatus; retry?: number; error?: string | null; sendAfter?: string | null },
  nowText: string,
): Promise<void> {
  const values: Record<string, unknown> = { status: state.status, modified: nowText };
  if (state.retry !== undefined) values.retry = state.retry;
  if (state.error !== undefined) values.error = state.error;
  if (state.sendAfter !== undefined) values.send_after = state.sendAfter;
  await s.q.run(s.dialect.builder.updateTable(tables(s).queue).set(values).where('name', '=', name).compile());
}

/**
 * Mails stuck in Sending since before `cutoff` (a worker died mid-send) go back to Not Sent, or
 * Partially Sent when some recipient already got it; answers how many.
 */
export async function releaseStale(s: QueueScope, cutoff: string, nowText: string): Promise<number> {
  const t = tables(s);
  const stale = await s.q.all<{ name: string }>(
    s.dialect.builder.selectFrom(t.queue).select('name').where('status', '=', 'Sending').where('modified', '<', cutoff).compile(),
  );
  for (const { name } of stale) {
    const sent = await s.q.all(
      s.dialect.builder.selectFrom(t.recipient).select('name').where('parent', '=', name).where('status', '=', 'Sent').limit(1).compile(),
    );
    await s.q.run(
      s.dialect.builder
        .updateTable(t.queue)
        .set({ status: sent.length > 0 ? 'Partially Sent' : 'Not Sent', modified: nowText })
        .where('name', '=', name)
        .where('status', '=', 'Sending')
        .compile(),
    );
  }
  return stale.length;
}

/** Not Sent mails created before `cutoff` become Expired (the reference gives up after 7 days). */
export async function expireOld(s: QueueScope, cutoff: string, nowText: string): Promise<number> {
  const { changes } = await s.q.run(
    s.dialect.builder
      .updateTable(tables(s).queue)
      .set({ status: 'Expired', modified: nowText })
      .where('status', '=', 'Not Sent')
      .where('creation', '<', cutoff)
      .compile(),
  );
  return changes;
}

/** Due mails, most urgent first (priority, then fewest retries, then oldest), as the reference's flush orders them. */
export async function dueMails(s: QueueScope, nowText: string, limit: number): Promise<{ name: string; retry: number }[]> {
  const rows = await s.q.all<Row>(
    s.dialect.builder
      .selectFrom(tables(s).queue)
      .select(['name', 'retry'])
      .where('status', 'in', [...SENDABLE])
      .where((eb) => eb.or([eb('send_after', 'is', null), eb('send_after', '<=', nowText)]))
      .orderBy('priority', 'desc')
      .orderBy('retry', 'asc')
      .orderBy('creation', 'asc')
      .limit(limit)
      .compile(),
  );
  return rows.map((r) => ({ name: String(r.name), retry: Number(r.retry ?? 0) }));
}
