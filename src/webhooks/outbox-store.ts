import { newJobName } from '../jobs/job-name.js';
import type { Doc } from '../meta/doctype.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import { OUTBOX_TABLE } from './outbox-table.js';
import type { NewDelivery } from './request-log-store.js';

/**
 * One webhook match waiting in the outbox: the delivery its Webhook Request Log records, the
 * document as it was at the match (rendered at the first attempt, not in the write), and what its
 * delivery job needs. Entries written before rendering moved out of the write carry `request`
 * instead of `doc`.
 */
export interface OutboxEntry extends NewDelivery {
  /** The name the log will have (fixed at the match, so a second save in the unit can replace it). */
  readonly log: string;
  /** The Standard Webhooks event id, fixed at the match. */
  readonly webhookId: string;
  /** When the match happened (epoch ms): the log's creation. */
  readonly at: number;
  /** The delivery job's queue, when the webhook names one. */
  readonly queue?: string;
  /** The document at the match, which the first attempt renders as the webhook's owner may read it. */
  readonly doc?: Doc;
}

/** The outbox INSERT, compiled once per dialect: it runs inside every matching write. */
const insertShape = perOwner((dialect: Dialect) =>
  statementShape(2, (name: unknown, entry: unknown) => dialect.builder.insertInto(OUTBOX_TABLE).values({ name, entry }).compile()),
);

/**
 * Writes `entry` on the caller's connection (inside the document's transaction, so it exists
 * exactly when the change commits); answers the outbox row's name. Names are time-ordered, so a
 * batch takes the oldest rows first.
 */
export async function writeEntry(q: Queryable, dialect: Dialect, entry: OutboxEntry): Promise<string> {
  const name = newJobName(entry.at);
  await q.run(insertShape(dialect)(name, JSON.stringify(entry)));
  return name;
}

/** A second match of the same (webhook, document) in one unit: the waiting entry takes the last state. */
export async function rewriteEntry(q: Queryable, dialect: Dialect, name: string, entry: OutboxEntry): Promise<void> {
  await q.run(
    dialect.builder
      .updateTable(OUTBOX_TABLE)
      .set({ entry: JSON.stringify(entry) })
      .where('name', '=', name)
      .compile(),
  );
}

/** True when some entry waits: a cheap read that spares a sweep its write transaction. */
export async function hasEntries(q: Queryable, dialect: Dialect): Promise<boolean> {
  return (await q.all(dialect.builder.selectFrom(OUTBOX_TABLE).select('name').limit(1).compile())).length > 0;
}

/**
 * Removes up to `limit` entries, oldest first, and answers them, in the caller's transaction. The
 * rows are taken by one `DELETE ... RETURNING`, so two processes draining at once never both get
 * one: on PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED` (the dialect's
 * `supportsRowLocks`), so a second drain takes other rows instead of waiting for the first's; on
 * SQLite write transactions take turns.
 */
export async function takeEntries(q: Queryable, dialect: Dialect, limit: number): Promise<OutboxEntry[]> {
  const b = dialect.builder;
  let oldest = b.selectFrom(OUTBOX_TABLE).select('name').orderBy('name').limit(limit);
  if (dialect.supportsRowLocks) oldest = oldest.forUpdate().skipLocked();
  const rows = await q.all<{ entry: string }>(b.deleteFrom(OUTBOX_TABLE).where('name', 'in', oldest).returning('entry').compile());
  // RETURNING promises no order; logs are created in the order the matches happened.
  return rows.map((r) => JSON.parse(String(r.entry)) as OutboxEntry).sort((a, b) => a.at - b.at);
}
