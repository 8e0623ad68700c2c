import type { DocContext } from '../documents/doc-context.js';
import { retryDelay } from './backoff.js';
import type { JobClock } from './job-clock.js';
import type { JobQueue, JobRun } from './job-queue.js';
import { claimJobs, hasDueJobs } from './job-claim.js';
import { completeJob, failJob, rescheduleJob } from './job-store.js';
import type { JobRow } from './job-table.js';

/** The logging a worker does (a pino or Fastify logger fits). */
export interface JobLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Units of work acting as a user, for handlers that read or write documents (the site provides them). */
export interface JobUnits {
  read<T>(user: string, work: (ctx: DocContext) => Promise<T>): Promise<T>;
  write<T>(user: string, work: (ctx: DocContext) => Promise<T>): Promise<T>;
}

/** Options of a worker (docs/jobs.md "Workers"). */
export interface JobWorkerOptions {
  /** Jobs run at the same time by this worker (default 2). */
  readonly concurrency?: number;
  /** How often an idle worker looks for due jobs, in ms (default 1000); enqueues in this process wake it at once. */
  readonly pollMs?: number;
  /** How long past its timeout a running job's lease lasts before another worker may take it over (default 30 s). */
  readonly leaseMarginMs?: number;
  /** Only these queues (default: all). */
  readonly queues?: readonly string[];
  readonly logger?: JobLogger;
  readonly units?: JobUnits;
  /** Randomness of the retry jitter (tests pin it). */
  readonly random?: () => number;
  /** The time this worker claims by (default: the queue's clock); tests run it ahead to reach retries. */
  readonly clock?: JobClock;
  /** How often the queue's job sources are swept for work a crashed process left, in ms (default 10 000; also at start). */
  readonly sweepMs?: number;
}

const MAX_ERROR_LENGTH = 8_000;
const silent: JobLogger = { info() {}, warn() {}, error() {} };

/**
 * Claims due jobs from the site's database and runs them: at least once, each under a lease, retried
 * with backoff, failed for good after its retries (docs/jobs.md). Every fw process runs one; `fw
 * worker` runs only this.
 */
export class JobWorker {
  readonly #queue: JobQueue;
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #leaseMarginMs: number;
  readonly #queues: readonly string[] | undefined;
  readonly #log: JobLogger;
  readonly #units: JobUnits | undefined;
  readonly #random: () => number;
  readonly #clock: JobClock;
  readonly #sweepMs: number;
  #nextSweep = 0;
  readonly #running = new Set<Promise<void>>();
  #loop: Promise<void> | undefined;
  #stopped = true;
  #woken = false;
  #wakeUp: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(queue: JobQueue, options: JobWorkerOptions = {}) {
    this.#queue = queue;
    this.#concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
    this.#pollMs = options.pollMs ?? 1000;
    this.#leaseMarginMs = options.leaseMarginMs ?? 30_000;
    this.#queues = options.queues;
    this.#log = options.logger ?? silent;
    this.#units = options.units;
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? queue.clock;
    this.#sweepMs = options.sweepMs ?? 10_000;
  }

  /** Starts the loop. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unsubscribe = this.#queue.onWake(() => this.wake());
    this.#loop = this.#run();
  }

  /** Stops claiming and waits for the jobs in flight (a job cut short by exit is run again after its lease). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.wake();
    await this.#loop;
    await Promise.allSettled([...this.#running]);
  }

  /** Looks for due jobs now rather than at the next poll. */
  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /**
   * Sweeps the job sources, then claims and runs due jobs until none is left; answers how many ran.
   * For tests and one-shot use.
   */
  async runDue(): Promise<number> {
    await this.#queue.sweepSources();
    let ran = 0;
    for (;;) {
      const jobs = await this.#claim(this.#concurrency);
      if (jobs.length === 0) return ran;
      await Promise.all(jobs.map((job) => this.#execute(job)));
      ran += jobs.length;
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#woken = false;
      // At start and now and then: deliveries whose jobs a killed process never wrote (docs/jobs.md "Job sources").
      if (Date.now() >= this.#nextSweep) {
        this.#nextSweep = Date.now() + this.#sweepMs;
        await this.#queue.sweepSources();
      }
      const free = this.#concurrency - this.#running.size;
      if (free > 0) {
        try {
          for (const job of await this.#claim(free)) this.#track(this.#execute(job));
        } catch (err) {
          this.#log.error({ err }, 'job worker: claiming failed');
        }
      }
      if (!this.#woken && !this.#stopped) await this.#idle();
    }
  }

  #track(running: Promise<void>): void {
    this.#running.add(running);
    void running.finally(() => {
      this.#running.delete(running);
      this.wake();
    });
  }

  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.#pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeUp = () => {
        this.#wakeUp = undefined;
        done();
      };
    });
  }

  async #claim(limit: number): Promise<JobRow[]> {
    const { db } = this.#queue;
    const clock = this.#clock;
    // Jobs this process holds for a batch are written first, so a woken worker finds them.
    await this.#queue.flushSources();
    const now = clock.now();
    if (!(await db.read((q) => hasDueJobs(q, db.dialect, now, this.#queues)))) return [];
    return db.transaction((q) => claimJobs(q, db.dialect, { now: clock.now(), limit, leaseMarginMs: this.#leaseMarginMs, queues: this.#queues }));
  }

  /** Runs one claimed job and records the outcome; never throws. */
  async #execute(job: JobRow): Promise<void> {
    const { db } = this.#queue;
    const clock = this.#clock;
    let outcome: { ok: true } | { ok: false; error: string };
    if (job.attempts > job.max_retries + 1) {
      // Claimed again after its lease ran out once too often: the processes running it died.
      outcome = { ok: false, error: job.error ?? 'The process running this job stopped before it finished (its lease ran out)' };
    } else {
      outcome = await this.#invoke(job);
    }
    try {
      if (outcome.ok) {
        await db.transaction((q) => completeJob(q, db.dialect, job));
      } else if (job.attempts <= job.max_retries) {
        const at = clock.now() + retryDelay(job.attempts, this.#random);
        await db.transaction((q) => rescheduleJob(q, db.dialect, job, at, outcome.error));
        this.#log.warn({ job: job.name, handler: job.handler, attempt: job.attempts }, `job ${job.handler} failed, retrying: ${firstLine(outcome.error)}`);
      } else {
        await db.transaction((q) => failJob(q, db.dialect, job, outcome.error, clock.now()));
        this.#log.error({ job: job.name, handler: job.handler, attempt: job.attempts }, `job ${job.handler} failed for good: ${firstLine(outcome.error)}`);
      }
    } catch (err) {
      this.#log.error({ err, job: job.name }, 'job worker: recording the outcome failed (the job runs again after its lease)');
    }
  }

  async #invoke(job: JobRow): Promise<{ ok: true } | { ok: false; error: string }> {
    const registered = this.#queue.handler(job.handler);
    if (!registered) return { ok: false, error: `No job handler is registered as ${job.handler} in this process` };
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new Error(`Timed out after ${job.timeout_ms} ms`);
        controller.abort(err);
        reject(err);
      }, job.timeout_ms);
    });
    try {
      const args = JSON.parse(job.args) as unknown;
      await Promise.race([Promise.resolve().then(() => registered.fn(args, this.#jobRun(job, controller.signal))), timedOut]);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: describe(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  #jobRun(job: JobRow, signal: AbortSignal): JobRun {
    const units = this.#units;
    const noUnits = (): never => {
      throw new Error('This worker was started without site units; jobs cannot read or write documents');
    };
    return {
      name: job.name,
      jobId: job.job_id ?? undefined,
      attempt: job.attempts,
      user: job.run_as,
      signal,
      read: (work) => (units ? units.read(job.run_as, work) : noUnits()),
      write: (work) => (units ? units.write(job.run_as, work) : noUnits()),
    };
  }
}

function describe(err: unknown): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0];
}
