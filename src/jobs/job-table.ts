import { sql } from 'kysely';
import type { SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/**
 * The queue's table. Internal tables carry the reserved `__` prefix (as `__Auth` and `__fw_state`),
 * so no DocType can ever name it and the resource API never reaches it (docs/jobs.md).
 */
export const JOB_TABLE = '__fw_job';

/** A job's state: queued (waiting for `run_at`), running (under a lease), failed (kept with its error). */
export type JobStatus = 'queued' | 'running' | 'failed';

/** One row of the job table. Times are epoch milliseconds. */
export interface JobRow {
  name: string;
  /** The caller's deduplication id, kept for display. */
  job_id: string | null;
  /** Unique while the job is queued or running; cleared when it fails, so the id can be used again. */
  dedupe_key: string | null;
  queue: string;
  handler: string;
  /** The arguments as JSON text. */
  args: string;
  status: JobStatus;
  attempts: number;
  max_retries: number;
  timeout_ms: number;
  run_at: number;
  lease_until: number | null;
  /** A random token per claim: only the claimant may finish or reschedule the job. */
  claim: string | null;
  /** The user the job acts as (who enqueued it; Administrator outside a request). */
  run_as: string;
  error: string | null;
  enqueued_at: number;
  finished_at: number | null;
}

/** CREATE TABLE and its indexes, idempotent (run at every site open, like the other system tables). */
export function jobTableStatements(dialect: Dialect): SqlStatement[] {
  const type = (spec: Parameters<Dialect['columnType']>[0]) => sql.raw(dialect.columnType(spec));
  const s = dialect.builder.schema;
  return [
    s
      .createTable(JOB_TABLE)
      .ifNotExists()
      .addColumn('name', type({ kind: 'varchar', length: 64 }), (c) => c.primaryKey())
      .addColumn('job_id', type({ kind: 'varchar', length: 255 }))
      .addColumn('dedupe_key', type({ kind: 'varchar', length: 255 }))
      .addColumn('queue', type({ kind: 'varchar', length: 140 }), (c) => c.notNull())
      .addColumn('handler', type({ kind: 'varchar', length: 255 }), (c) => c.notNull())
      .addColumn('args', type({ kind: 'text' }), (c) => c.notNull())
      .addColumn('status', type({ kind: 'varchar', length: 16 }), (c) => c.notNull())
      .addColumn('attempts', type({ kind: 'int' }), (c) => c.notNull())
      .addColumn('max_retries', type({ kind: 'int' }), (c) => c.notNull())
      .addColumn('timeout_ms', type({ kind: 'bigint' }), (c) => c.notNull())
      .addColumn('run_at', type({ kind: 'bigint' }), (c) => c.notNull())
      .addColumn('lease_until', type({ kind: 'bigint' }))
      .addColumn('claim', type({ kind: 'varchar', length: 64 }))
      .addColumn('run_as', type({ kind: 'varchar', length: 140 }), (c) => c.notNull())
      .addColumn('error', type({ kind: 'text' }))
      .addColumn('enqueued_at', type({ kind: 'bigint' }), (c) => c.notNull())
      .addColumn('finished_at', type({ kind: 'bigint' }))
      .compile(),
    s.createIndex(`${JOB_TABLE}_dedupe_key`).ifNotExists().unique().on(JOB_TABLE).column('dedupe_key').compile(),
    // The claim order (job-claim.ts): due queued jobs, and the running ones whose lease ran out, are
    // each read from it in (run_at, name) order, a few rows a claim however many wait.
    s.createIndex(`${JOB_TABLE}_claim`).ifNotExists().on(JOB_TABLE).columns(['status', 'run_at', 'name']).compile(),
    // Its predecessor on (status, run_at) left the sort to the engine; sites that have it lose it.
    s.dropIndex(`${JOB_TABLE}_due`).ifExists().compile(),
  ];
}
