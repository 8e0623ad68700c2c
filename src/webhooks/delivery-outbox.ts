import type { JobQueue, JobSource } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database, Queryable } from '../storage/database.js';
import { hasEntries, takeEntries } from './outbox-store.js';
import { insertDeliveries } from './request-log-store.js';
import { writeSnapshots } from './snapshot-store.js';
import { DELIVER_JOB } from './webhook-delivery.js';

/** What the outbox needs from the site. */
export interface OutboxDeps {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly jobs: JobQueue;
  readonly timeZone: () => string;
  /** Where a failed batch is reported (its entries stay in the outbox for the next flush or sweep). */
  readonly report: (err: unknown) => void;
  /** How long a batch collects after the first commit that asked for one, in ms (default 100). */
  readonly batchMs?: number;
}

/** Entries taken per transaction: bounds a batch's statements (PostgreSQL allows 65 535 parameters). */
const BATCH_LIMIT = 500;

/**
 * Turns webhook outbox entries into Webhook Request Logs and delivery jobs (docs/webhooks.md "How
 * a change becomes a request"). The recorder writes one outbox row per match in the document's
 * transaction and, once that committed, calls {@link nudge}; a batch then takes every waiting entry
 * and writes the logs (status Pending), the documents they render from (snapshot-store.ts) and
 * their jobs (`webhook:<log>:1`) in one transaction of its
 * own, so the write that matched pays one small row instead of a log, a job and their indexes. As a
 * job source of the site's queue it is flushed before a worker claims, and swept at worker start
 * and now and then, which picks up the entries of a process killed between its commit and its batch.
 */
export class DeliveryOutbox implements JobSource {
  readonly #deps: OutboxDeps;
  readonly #batchMs: number;
  #timer: NodeJS.Timeout | undefined;
  #asked = false;
  #draining: Promise<void> = Promise.resolve();

  constructor(deps: OutboxDeps) {
    this.#deps = deps;
    this.#batchMs = deps.batchMs ?? 100;
  }

  /** A write with outbox entries committed: a batch runs soon, collecting the commits until then. */
  nudge(): void {
    this.#asked = true;
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.#batchMs);
    // A batch never keeps a process alive: closing the site flushes, and a sweep finds the rest.
    this.#timer.unref();
  }

  /** Writes the batch this process asked for, if any (workers call it before claiming). */
  async flush(): Promise<void> {
    if (!this.#asked) return this.#draining;
    return this.#drain();
  }

  /** Writes whatever waits in the outbox, whoever wrote it. */
  async sweep(): Promise<void> {
    const { db } = this.#deps;
    try {
      if (!(await db.read((q) => hasEntries(q, db.dialect)))) return;
    } catch (err) {
      this.#deps.report(err);
      return;
    }
    return this.#drain();
  }

  /** One drain at a time per process (two at once would be correct, only wasteful). */
  #drain(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#asked = false;
    this.#draining = this.#draining.then(() => this.#drainAll());
    return this.#draining;
  }

  async #drainAll(): Promise<void> {
    const { db, jobs } = this.#deps;
    try {
      let written = 0;
      for (;;) {
        const taken = await db.transaction((q) => this.#batch(q));
        written += taken;
        if (taken < BATCH_LIMIT) break;
      }
      if (written > 0) jobs.wake();
    } catch (err) {
      this.#deps.report(err);
    }
  }

  async #batch(q: Queryable): Promise<number> {
    const { db, metas, jobs } = this.#deps;
    const entries = await takeEntries(q, db.dialect, BATCH_LIMIT);
    if (entries.length === 0) return 0;
    const scope = { q, dialect: db.dialect, metas, timeZone: this.#deps.timeZone() };
    await insertDeliveries(
      scope,
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
    return entries.length;
  }
}
