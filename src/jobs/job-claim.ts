import { randomUUID } from 'node:crypto';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { normaliseJob } from './job-store.js';
import { JOB_TABLE, type JobRow } from './job-table.js';

/*
 * A job is claimable when it is queued and due, or running under a lease that has run out. Written
 * as one `OR` ordered by (run_at, name), no index serves it, so both engines read and sort every
 * due row at each claim: with 25,000 jobs waiting that was half of a SQLite process. Asked apart, each kind
 * is one ordered range of the claim index (status, run_at, name) that stops after `limit` rows:
 * due queued jobs from the oldest onwards, and the running ones, no more than the workers run at
 * once, with their lease checked on the way (docs/jobs.md "The table").
 */

/** Where and when a worker looks: its clock now, and its queues (all of them when absent or empty). */
interface ClaimScope {
  readonly now: number;
  readonly queues?: readonly string[] | undefined;
}

/**
 * Jobs in `status` whose `time` has come, on the scope's queues, in claim order. The order holds
 * even where only one row is wanted: it is what makes PostgreSQL's planner read the index rather
 * than the table from its start, where the finished jobs autovacuum has not yet cleared lie.
 */
function reached(dialect: Dialect, status: 'queued' | 'running', time: 'run_at' | 'lease_until', scope: ClaimScope) {
  let query = dialect.builder.selectFrom(JOB_TABLE).where('status', '=', status).where(time, '<=', scope.now);
  if (scope.queues && scope.queues.length > 0) query = query.where('queue', 'in', scope.queues);
  return query.orderBy('run_at').orderBy('name');
}

/** Queued jobs whose time has come. */
function dueQueued(dialect: Dialect, scope: ClaimScope) {
  return reached(dialect, 'queued', 'run_at', scope);
}

/** Running jobs whose lease has run out: the process running them died or stalled. */
function leaseExpired(dialect: Dialect, scope: ClaimScope) {
  return reached(dialect, 'running', 'lease_until', scope);
}

/** The two kinds; the one a busy queue answers first goes first, so a due probe usually asks once. */
const CLAIMABLE = [dueQueued, leaseExpired] as const;

/** True when some job is due: a cheap read that spares a write transaction when the queue is idle. */
export async function hasDueJobs(q: Queryable, dialect: Dialect, now: number, queues?: readonly string[]): Promise<boolean> {
  for (const kind of CLAIMABLE) {
    const rows = await q.all(kind(dialect, { now, queues }).select('name').limit(1).compile());
    if (rows.length > 0) return true;
  }
  return false;
}

/** What a claim reads of a job before it takes it. */
interface Candidate {
  readonly name: string;
  readonly timeout_ms: number;
  readonly run_at: number;
}

/** The claim order, as the database sorts it: names are ASCII, so code units compare as bytes do. */
function byRunAtThenName(a: Candidate, b: Candidate): number {
  return Number(a.run_at) - Number(b.run_at) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Claims up to `limit` due jobs in a write transaction, oldest `run_at` first: each gets a fresh
 * claim token, a lease until `now + timeout + leaseMarginMs` and one more attempt. Each kind of
 * claimable job is read in claim order up to `limit`, and the first `limit` of both are taken. On
 * PostgreSQL the candidate rows are locked with `FOR UPDATE SKIP LOCKED`, so processes on several
 * machines take different jobs without waiting on each other; a candidate that loses the merge
 * stays locked until this transaction ends, which takes leases that ran out (usually none) to
 * happen. On SQLite the write transaction already excludes every other claimant.
 */
export async function claimJobs(
  q: Queryable,
  dialect: Dialect,
  options: { now: number; limit: number; leaseMarginMs: number; queues?: readonly string[] },
): Promise<JobRow[]> {
  const candidates: Candidate[] = [];
  for (const kind of CLAIMABLE) {
    let query = kind(dialect, options).select(['name', 'timeout_ms', 'run_at']).limit(options.limit);
    if (dialect.supportsRowLocks) query = query.forUpdate().skipLocked();
    candidates.push(...(await q.all<Candidate>(query.compile())));
  }
  const claimed: JobRow[] = [];
  for (const { name, timeout_ms } of candidates.sort(byRunAtThenName).slice(0, options.limit)) {
    const [row] = await q.all<JobRow>(
      dialect.builder
        .updateTable(JOB_TABLE)
        .set((eb) => ({
          status: 'running',
          attempts: eb('attempts', '+', 1),
          claim: randomUUID(),
          lease_until: options.now + Number(timeout_ms) + options.leaseMarginMs,
        }))
        .where('name', '=', name)
        .returningAll()
        .compile(),
    );
    if (row) claimed.push(normaliseJob(row));
  }
  return claimed;
}
