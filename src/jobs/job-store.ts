import { newJobName } from './job-name.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { rowChunks } from '../storage/row-chunks.js';
import { perOwner } from '../storage/statement-shape.js';
import { JOB_TABLE, type JobRow, type JobStatus } from './job-table.js';

const JOB_COLUMNS = [
  'name',
  'job_id',
  'dedupe_key',
  'queue',
  'handler',
  'args',
  'status',
  'attempts',
  'max_retries',
  'timeout_ms',
  'run_at',
  'lease_until',
  'claim',
  'run_as',
  'error',
  'enqueued_at',
  'finished_at',
] as const satisfies readonly (keyof JobRow)[];

/**
 * The job INSERT, compiled once per dialect in a few sizes: enqueueing inside a busy write path skips
 * the query builder, and the webhook outbox's batches write many rows a statement.
 */
const insertJobChunks = perOwner((dialect: Dialect) =>
  rowChunks(JOB_COLUMNS, (rows) =>
    dialect.builder
      .insertInto(JOB_TABLE)
      .values(rows as unknown as JobRow[])
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .compile(),
  ),
);

/** A job as enqueue writes it. */
export interface NewJob {
  readonly handler: string;
  readonly args: string;
  readonly queue: string;
  readonly jobId?: string;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly runAt: number;
  readonly runAs: string;
  readonly now: number;
}

/**
 * Writes a job on `q` (inside the caller's transaction when there is one). With a `jobId` that a
 * queued or running job already holds, nothing is written and that job's name is answered:
 * `ON CONFLICT DO NOTHING` on the unique dedupe key, so a concurrent duplicate never aborts the
 * caller's transaction on PostgreSQL.
 */
export async function insertJob(q: Queryable, dialect: Dialect, job: NewJob): Promise<{ name: string; created: boolean }> {
  const row = jobRow(job);
  const { name } = row;
  const [insert] = insertJobChunks(dialect)([row]);
  const { changes } = await q.run(insert!);
  if (changes > 0 || job.jobId === undefined) return { name, created: true };
  const existing = await q.all<{ name: string }>(dialect.builder.selectFrom(JOB_TABLE).select('name').where('dedupe_key', '=', job.jobId).compile());
  return { name: existing[0]?.name ?? name, created: false };
}

/**
 * Writes several jobs on `q` with a few multi-row INSERTs (row-chunks.ts); a job whose
 * `jobId` a queued or running job already holds is skipped, as in {@link insertJob}. Answers how
 * many were written.
 */
export async function insertJobs(q: Queryable, dialect: Dialect, jobs: readonly NewJob[]): Promise<number> {
  let written = 0;
  for (const statement of insertJobChunks(dialect)(jobs.map(jobRow))) written += (await q.run(statement)).changes;
  return written;
}

function jobRow(job: NewJob): JobRow {
  return {
    name: newJobName(job.now),
    job_id: job.jobId ?? null,
    dedupe_key: job.jobId ?? null,
    queue: job.queue,
    handler: job.handler,
    args: job.args,
    status: 'queued',
    attempts: 0,
    max_retries: job.maxRetries,
    timeout_ms: job.timeoutMs,
    run_at: job.runAt,
    lease_until: null,
    claim: null,
    run_as: job.runAs,
    error: null,
    enqueued_at: job.now,
    finished_at: null,
  };
}

/** Numbers as numbers on both engines (SQLite may hand back bigint columns as they were bound). */
export function normaliseJob(row: JobRow): JobRow {
  return {
    ...row,
    attempts: Number(row.attempts),
    max_retries: Number(row.max_retries),
    timeout_ms: Number(row.timeout_ms),
    run_at: Number(row.run_at),
    lease_until: row.lease_until === null ? null : Number(row.lease_until),
    enqueued_at: Number(row.enqueued_at),
    finished_at: row.finished_at === null ? null : Number(row.finished_at),
  };
}

/** Where the claimant's own claim still holds: after a lease ran out, another worker's claim wins. */
function ownClaim(job: Pick<JobRow, 'name' | 'claim'>) {
  return { name: job.name, claim: job.claim };
}

/** A job that ran to its end is removed; answers false when the claim was lost meanwhile. */
export async function completeJob(q: Queryable, dialect: Dialect, job: JobRow): Promise<boolean> {
  const { name, claim } = ownClaim(job);
  const { changes } = await q.run(dialect.builder.deleteFrom(JOB_TABLE).where('name', '=', name).where('claim', '=', claim).compile());
  return changes > 0;
}

/** A failed run with retries left: queued again at `runAt`, its error kept. */
export async function rescheduleJob(q: Queryable, dialect: Dialect, job: JobRow, runAt: number, error: string): Promise<boolean> {
  const { changes } = await q.run(
    dialect.builder
      .updateTable(JOB_TABLE)
      .set({ status: 'queued', run_at: runAt, lease_until: null, claim: null, error })
      .where('name', '=', job.name)
      .where('claim', '=', job.claim)
      .compile(),
  );
  return changes > 0;
}

/** A job out of retries: kept as failed with its error; its dedupe id becomes free again. */
export async function failJob(q: Queryable, dialect: Dialect, job: JobRow, error: string, now: number): Promise<boolean> {
  const { changes } = await q.run(
    dialect.builder
      .updateTable(JOB_TABLE)
      .set({ status: 'failed', lease_until: null, claim: null, dedupe_key: null, error, finished_at: now })
      .where('name', '=', job.name)
      .where('claim', '=', job.claim)
      .compile(),
  );
  return changes > 0;
}

/** Filters of the job list. */
export interface JobListOptions {
  readonly status?: JobStatus;
  readonly queue?: string;
  readonly handler?: string;
  readonly limit: number;
  readonly start: number;
}

/** Jobs, oldest first, for the Background Job methods. */
export async function listJobs(q: Queryable, dialect: Dialect, options: JobListOptions): Promise<JobRow[]> {
  let query = dialect.builder.selectFrom(JOB_TABLE).selectAll();
  if (options.status) query = query.where('status', '=', options.status);
  if (options.queue) query = query.where('queue', '=', options.queue);
  if (options.handler) query = query.where('handler', '=', options.handler);
  const rows = await q.all<JobRow>(query.orderBy('enqueued_at').orderBy('name').limit(options.limit).offset(options.start).compile());
  return rows.map(normaliseJob);
}

/** One job by name. */
export async function getJob(q: Queryable, dialect: Dialect, name: string): Promise<JobRow | undefined> {
  const [row] = await q.all<JobRow>(dialect.builder.selectFrom(JOB_TABLE).selectAll().where('name', '=', name).compile());
  return row ? normaliseJob(row) : undefined;
}

/** How many jobs are in each status (the queue-depth figures). */
export async function countJobs(q: Queryable, dialect: Dialect): Promise<Record<JobStatus, number>> {
  const rows = await q.all<{ status: JobStatus; n: number }>(
    dialect.builder
      .selectFrom(JOB_TABLE)
      .select((eb) => ['status', eb.fn.countAll().as('n')])
      .groupBy('status')
      .compile(),
  );
  const counts: Record<JobStatus, number> = { queued: 0, running: 0, failed: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/**
 * Queues a failed job again now, with its attempts reset. Its job id takes back the dedupe key
 * unless another queued job holds it meanwhile (then the retry is refused: answers false).
 */
export async function retryFailedJob(q: Queryable, dialect: Dialect, name: string, now: number): Promise<boolean> {
  const job = await getJob(q, dialect, name);
  if (job?.status !== 'failed') return false;
  if (job.job_id !== null) {
    const holders = await q.all(dialect.builder.selectFrom(JOB_TABLE).select('name').where('dedupe_key', '=', job.job_id).compile());
    if (holders.length > 0) return false;
  }
  const { changes } = await q.run(
    dialect.builder
      .updateTable(JOB_TABLE)
      .set({ status: 'queued', attempts: 0, run_at: now, finished_at: null, dedupe_key: job.job_id })
      .where('name', '=', name)
      .where('status', '=', 'failed')
      .compile(),
  );
  return changes > 0;
}

/** Removes a failed job for good. */
export async function deleteFailedJob(q: Queryable, dialect: Dialect, name: string): Promise<boolean> {
  const { changes } = await q.run(dialect.builder.deleteFrom(JOB_TABLE).where('name', '=', name).where('status', '=', 'failed').compile());
  return changes > 0;
}
