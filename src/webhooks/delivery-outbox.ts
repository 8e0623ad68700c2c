import { AfterCommitOutbox } from '../jobs/after-commit-outbox.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Doc } from '../meta/doctype.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database, Queryable } from '../storage/database.js';
import { OUTBOX_TABLE } from './outbox-table.js';
import { insertDeliveries, type NewDelivery } from './request-log-store.js';
import { writeSnapshots } from './snapshot-store.js';
import { DELIVER_JOB } from './webhook-delivery.js';

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

/** The webhook outbox: entries written by the recorder, applied by {@link writeDeliveries}. */
export type DeliveryOutbox = AfterCommitOutbox<OutboxEntry, { readonly q: Queryable }>;

/** What the outbox needs from the site. */
export interface OutboxDeps {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly jobs: JobQueue;
  readonly timeZone: () => string;
  /** Where a failed batch, and an entry set aside because it fails alone, is reported. */
  readonly report: (err: unknown) => void;
}

/**
 * How long a batch collects after the first commit that asked for one: its fixed cost (about 1 ms
 * on SQLite) is then shared by a few hundred matches (docs/benchmarks.md "What a match costs").
 */
const DELIVERY_BATCH_MS = 100;

/**
 * The webhook outbox (docs/webhooks.md "How a change becomes a request"), an after-commit outbox
 * of its own table: the recorder writes one entry per match in the document's transaction; once
 * that committed, a batch turns every waiting entry into a Webhook Request Log and its delivery
 * job in one transaction of its own, so the write that matched pays one small row instead of a
 * log, a job and their indexes. Rows are taken `SKIP LOCKED` on PostgreSQL: deliveries need no
 * order across processes, each has its own job.
 */
export function deliveryOutbox(deps: OutboxDeps): DeliveryOutbox {
  const { db, jobs } = deps;
  return new AfterCommitOutbox<OutboxEntry, { readonly q: Queryable }>({
    db,
    table: OUTBOX_TABLE,
    transaction: (work) => db.transaction((q) => work({ q })),
    apply: ({ q }, entries) => writeDeliveries(q, deps, entries),
    applied: () => jobs.wake(),
    report: deps.report,
    batchMs: DELIVERY_BATCH_MS,
    inOrder: false,
  });
}

/**
 * Writes the logs of a batch's entries (status Pending), the documents they render from
 * (snapshot-store.ts) and their jobs (`webhook:<log>:1`), in the batch's transaction.
 */
async function writeDeliveries(q: Queryable, deps: OutboxDeps, entries: OutboxEntry[]): Promise<void> {
  const { db, metas, jobs } = deps;
  await insertDeliveries(
    { q, dialect: db.dialect, metas, timeZone: deps.timeZone() },
    entries.map((e) => ({ ...e, name: e.log })),
  );
  await writeSnapshots(
    q,
    db.dialect,
    entries.flatMap((e) => (e.doc && e.error === undefined ? [{ log: e.log, doc: e.doc }] : [])),
  );
  const deliverable = entries.filter((e) => e.error === undefined);
  await jobs.enqueueBatch(
    deliverable.map((e) => ({ handler: DELIVER_JOB, args: { log: e.log }, options: { jobId: `webhook:${e.log}:1`, queue: e.queue, user: e.user } })),
    { q },
  );
}
