import { now as stamp } from '../datetime/clock.js';
import { storedDatetime } from '../datetime/stored-datetime.js';
import { hashName } from '../documents/naming/hash-name.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database, Queryable } from '../storage/database.js';
import type { JobClock } from './job-clock.js';
import type { JobQueue, ScheduledEntry } from './job-queue.js';
import type { JobLogger } from './job-worker.js';
import { Schedule } from './schedule.js';
import { claimSlot, initialiseSlot, SCHEDULE_TABLE } from './schedule-table.js';

/** The job that runs one slot of a scheduled handler and records it in the Scheduled Job Log. */
export const SCHEDULED_RUN_JOB = 'fw.scheduler.run';
export const SCHEDULED_JOB_LOG = 'Scheduled Job Log';

/** What the scheduler needs from the site. */
export interface SchedulerDeps {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly jobs: JobQueue;
  readonly timeZone: () => string;
}

/** Registers the job that runs scheduled handlers (once per site). */
export function registerScheduledRunJob(deps: SchedulerDeps): void {
  deps.jobs.register(
    SCHEDULED_RUN_JOB,
    async (args: { handler?: unknown; log?: unknown }, run) => {
      const handler = String(args.handler ?? '');
      const log = String(args.log ?? '');
      const registered = deps.jobs.handler(handler);
      try {
        if (!registered) throw new Error(`No job handler is registered as ${handler} in this process`);
        await registered.fn({}, run);
      } catch (err) {
        await setLogStatus(deps, log, 'Failed', err instanceof Error ? (err.stack ?? err.message) : String(err));
        throw err;
      }
      await setLogStatus(deps, log, 'Complete', null);
    },
    { maxRetries: 0 },
  );
}

async function setLogStatus(deps: SchedulerDeps, log: string, status: string, details: string | null): Promise<void> {
  const table = deps.metas.get(SCHEDULED_JOB_LOG).tableName;
  await deps.db.transaction((q) =>
    q.run(
      deps.db.dialect.builder
        .updateTable(table)
        .set({ status, details: details && details.length > 8000 ? `${details.slice(0, 8000)}…` : details, modified: stamp(deps.timeZone()) })
        .where('name', '=', log)
        .compile(),
    ),
  );
}

/**
 * Enqueues scheduled handlers when their slot comes (docs/jobs.md "Scheduler"). Every process runs
 * one; a slot is claimed in the database (`__fw_schedule`), so it runs once across processes and
 * machines, and only the latest due slot is ever claimed, so slots missed while everything was down
 * run once at start. Each run is a job (`fw.scheduler.run`) recorded in a Scheduled Job Log.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #tickMs: number;
  readonly #clock: JobClock;
  readonly #log: JobLogger | undefined;
  readonly #schedules = new Map<string, Schedule>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<unknown> | undefined;

  constructor(deps: SchedulerDeps, options: { tickMs?: number; clock?: JobClock; logger?: JobLogger } = {}) {
    this.#deps = deps;
    this.#tickMs = options.tickMs ?? 30_000;
    this.#clock = options.clock ?? deps.jobs.clock;
    this.#log = options.logger;
  }

  /** Ticks now and then every `tickMs`. */
  start(): void {
    if (this.#timer) return;
    const loop = () => {
      this.#ticking = this.tick()
        .catch((err: unknown) => this.#log?.error({ err }, 'scheduler: tick failed'))
        .finally(() => {
          if (this.#timer) this.#timer = setTimeout(loop, this.#tickMs);
        });
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops ticking (after the tick in flight). */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }

  /** Enqueues every handler whose latest slot this process claimed; answers their names. */
  async tick(): Promise<string[]> {
    const entries = this.#deps.jobs.schedules();
    if (entries.length === 0) return [];
    const { db } = this.#deps;
    const now = this.#clock.now();
    const timeZone = this.#deps.timeZone();
    const done = new Map(
      (await db.read((q) => q.all<{ handler: string; last_slot: number }>(db.dialect.builder.selectFrom(SCHEDULE_TABLE).selectAll().compile()))).map((r) => [
        r.handler,
        Number(r.last_slot),
      ]),
    );
    const enqueued: string[] = [];
    for (const entry of entries) {
      const slot = this.#schedule(entry.when, timeZone).latestSlot(now);
      if (slot === undefined || (done.get(entry.handler) ?? -Infinity) >= slot) continue;
      const claimed = await db.transaction((q) => this.#claim(q, entry, slot, timeZone, done.has(entry.handler)));
      if (claimed) enqueued.push(entry.handler);
    }
    if (enqueued.length > 0) this.#deps.jobs.wake();
    return enqueued;
  }

  async #claim(q: Queryable, entry: ScheduledEntry, slot: number, timeZone: string, known: boolean): Promise<boolean> {
    const { db, metas, jobs } = this.#deps;
    if (!known && (await initialiseSlot(q, db.dialect, entry.handler, entry.when, slot))) return false;
    if (!(await claimSlot(q, db.dialect, entry.handler, entry.when, slot))) return false;
    const log = hashName();
    const created = stamp(timeZone);
    const job = await jobs.enqueue(
      SCHEDULED_RUN_JOB,
      { handler: entry.handler, log },
      {
        unit: { q },
        jobId: `schedule:${entry.handler}:${slot}`,
        timeout: jobs.handler(entry.handler)?.defaults.timeout,
        queue: jobs.handler(entry.handler)?.defaults.queue,
      },
    );
    await q.run(
      db.dialect.builder
        .insertInto(metas.get(SCHEDULED_JOB_LOG).tableName)
        .values({
          name: log,
          owner: 'Administrator',
          creation: created,
          modified: created,
          modified_by: 'Administrator',
          docstatus: 0,
          idx: 0,
          scheduled_job_type: entry.handler,
          frequency: entry.when,
          status: 'Scheduled',
          slot: storedDatetime(slot, timeZone),
          job,
        })
        .compile(),
    );
    return true;
  }

  #schedule(when: string, timeZone: string): Schedule {
    const key = `${when}\u0000${timeZone}`;
    let schedule = this.#schedules.get(key);
    if (!schedule) {
      schedule = new Schedule(when, timeZone);
      this.#schedules.set(key, schedule);
    }
    return schedule;
  }
}
