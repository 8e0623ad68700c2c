import { ADMINISTRATOR_USER, type Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { Database, Queryable } from '../storage/database.js';
import { systemClock, type JobClock } from './job-clock.js';
import { insertJob, insertJobs, type NewJob } from './job-store.js';
import { Schedule } from './schedule.js';

/** What a running job receives besides its arguments. */
export interface JobRun {
  /** The job's row name. */
  readonly name: string;
  /** The caller's deduplication id, if it gave one. */
  readonly jobId: string | undefined;
  /** 1 for the first run, 2 for the first retry, ... */
  readonly attempt: number;
  /** The user the job acts as: who enqueued it, or Administrator. */
  readonly user: string;
  /** Aborted when the job's timeout passes; long work should stop when it fires. */
  readonly signal: AbortSignal;
  /** Runs `work` in a read unit acting as the job's user. */
  read<T>(work: (ctx: DocContext) => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction acting as the job's user (the same pipeline and hooks as a request). */
  write<T>(work: (ctx: DocContext) => Promise<T>): Promise<T>;
}

/** A job handler: resolves when done, throws to fail the attempt (it is retried while retries remain). */
// biome-ignore lint/suspicious/noExplicitAny: each handler declares the shape of the arguments its job was queued with
export type JobHandler = (args: any, run: JobRun) => Promise<void> | void;

/** Defaults a handler's jobs get unless enqueue says otherwise. */
export interface HandlerDefaults {
  readonly queue?: string;
  /** Milliseconds a run may take before it fails (and its lease may be taken over). */
  readonly timeout?: number;
  /** Retries after the first run. */
  readonly maxRetries?: number;
}

/**
 * The unit of work a job joins (a DocContext fits): its connection, and when the site provides
 * one, the after-commit seam used to wake the worker once the job is visible.
 */
export interface JobUnit {
  readonly q: Queryable;
  readonly principal?: Pick<Principal, 'user'>;
  readonly unit?: { afterCommit(fn: () => void | Promise<void>): void };
}

/** Options of enqueue (docs/jobs.md). */
export interface EnqueueOptions extends HandlerDefaults {
  /** Run no earlier than this many milliseconds from now. */
  readonly delay?: number;
  /** Run no earlier than this instant. */
  readonly at?: Date | number;
  /** Deduplication: while a job with this id is queued or running, enqueuing it again does nothing. */
  readonly jobId?: string;
  /**
   * The unit of work to write the job in: it then exists only if that unit commits (a transactional
   * outbox). Without one the job is written in a transaction of its own.
   */
  readonly unit?: JobUnit;
  /** The user the job acts as when not enqueued inside a unit (default Administrator). */
  readonly user?: string;
}

/** Defaults of every job (docs/jobs.md). */
export const DEFAULT_QUEUE = 'default';
export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_RETRIES = 3;
/** Caps that keep a typo from parking a job for ever. */
const MAX_TIMEOUT_MS = 24 * 3_600_000;
const MAX_RETRIES = 100;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

interface Registered {
  readonly fn: JobHandler;
  readonly defaults: HandlerDefaults;
}

/**
 * Something that holds jobs not written yet (docs/jobs.md "Job sources"): the webhook outbox, whose
 * deliveries are enqueued in batches after their writes committed. Workers ask sources to write
 * their jobs before they claim, and to sweep for what a crashed process left behind. A source
 * reports its own failures and always resolves: what it could not write waits for the next call.
 */
export interface JobSource {
  /** Writes the jobs this process was asked to write soon (after-commit batches). */
  flush(): Promise<void>;
  /** Writes the jobs any process left unwritten (killed between a commit and its flush). */
  sweep(): Promise<void>;
}

/** One job of {@link JobQueue.enqueueBatch}. */
export interface BatchedJob {
  readonly handler: string;
  readonly args: unknown;
  readonly options?: Omit<EnqueueOptions, 'unit'>;
}

/** A handler run on a schedule (the reference's `scheduler_events`). */
export interface ScheduledEntry {
  readonly handler: string;
  /** `all`, `hourly`, `daily`, `weekly`, `monthly` or a cron expression. */
  readonly when: string;
}

/**
 * The site's job handlers and the way jobs are enqueued. Jobs live in the site's own database
 * (`__fw_job`); handlers are named, since a stored job must find its code again in whichever
 * process claims it.
 */
export class JobQueue {
  readonly #handlers = new Map<string, Registered>();
  readonly #wakeListeners = new Set<() => void>();
  readonly #schedules: ScheduledEntry[] = [];
  readonly #sources: JobSource[] = [];

  constructor(
    readonly db: Database,
    readonly clock: JobClock = systemClock,
  ) {}

  /** Registers `fn` under `name` (dotted identifiers, such as `library.jobs.send_reminders`). */
  register(name: string, fn: JobHandler, defaults: HandlerDefaults = {}): void {
    if (typeof name !== 'string' || !NAME.test(name)) throw new Error(`A job handler name is dotted identifiers, got ${JSON.stringify(name)}`);
    if (typeof fn !== 'function') throw new Error(`Job handler ${name}: the handler must be a function`);
    if (this.#handlers.has(name)) throw new Error(`Job handler ${name} is already registered`);
    checkDefaults(defaults, name);
    this.#handlers.set(name, { fn, defaults });
  }

  /**
   * Runs the handler registered under `handler` on a schedule: `all` (every four minutes),
   * `hourly`, `daily`, `weekly`, `monthly`, or a cron expression, in the site's time zone. Each due
   * slot runs once across every process (see Scheduler).
   */
  schedule(when: string, handler: string): void {
    if (!this.#handlers.has(handler)) throw new Error(`Schedule ${JSON.stringify(when)}: no job handler is registered as ${JSON.stringify(handler)}`);
    if (typeof when !== 'string' || when.trim() === '') throw new Error(`Job ${handler}: the schedule must be a frequency or a cron expression`);
    new Schedule(when, 'UTC'); // throws with the reason when the expression is invalid
    if (this.#schedules.some((s) => s.handler === handler)) throw new Error(`Job ${handler} is already scheduled`);
    this.#schedules.push({ handler, when });
  }

  /** The scheduled handlers. */
  schedules(): readonly ScheduledEntry[] {
    return this.#schedules;
  }

  /** The handler registered under `name`. */
  handler(name: string): Registered | undefined {
    return this.#handlers.get(name);
  }

  /**
   * Stores a job for `handler` with JSON `args` and answers its name (or, deduplicated by `jobId`,
   * the name of the job already waiting). Inside a unit the job is part of that transaction.
   */
  async enqueue(handler: string, args: unknown = {}, options: EnqueueOptions = {}): Promise<string> {
    const job = this.#prepare(handler, args, options, this.clock.now());
    const unit = options.unit;
    if (unit) {
      const { name } = await insertJob(unit.q, this.db.dialect, job);
      unit.unit?.afterCommit(() => this.wake());
      return name;
    }
    const { name } = await this.db.transaction((q) => insertJob(q, this.db.dialect, job));
    this.wake();
    return name;
  }

  /**
   * Stores several jobs in `unit`'s transaction with one statement; a `jobId` already queued or
   * running is skipped, as with {@link enqueue}. Each job acts as its `user` (default Administrator).
   * The caller wakes the workers once its transaction committed.
   */
  async enqueueBatch(jobs: readonly BatchedJob[], unit: Pick<JobUnit, 'q'>): Promise<void> {
    const now = this.clock.now();
    await insertJobs(
      unit.q,
      this.db.dialect,
      jobs.map((j) => this.#prepare(j.handler, j.args, j.options ?? {}, now)),
    );
  }

  #prepare(handler: string, args: unknown, options: EnqueueOptions, now: number): NewJob {
    const registered = this.#handlers.get(handler);
    if (!registered) throw new Error(`No job handler is registered as ${JSON.stringify(handler)}`);
    checkDefaults(options, handler);
    const text = JSON.stringify(args ?? null);
    if (text === undefined) throw new Error(`Job ${handler}: the arguments must be JSON`);
    if (options.jobId !== undefined && (typeof options.jobId !== 'string' || options.jobId === '' || options.jobId.length > 255)) {
      throw new Error(`Job ${handler}: jobId must be a non-empty string of at most 255 characters`);
    }
    return {
      handler,
      args: text,
      queue: options.queue ?? registered.defaults.queue ?? DEFAULT_QUEUE,
      jobId: options.jobId,
      maxRetries: options.maxRetries ?? registered.defaults.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeoutMs: options.timeout ?? registered.defaults.timeout ?? DEFAULT_TIMEOUT_MS,
      runAt: runAt(now, options),
      runAs: options.unit?.principal?.user ?? options.user ?? ADMINISTRATOR_USER,
      now,
    };
  }

  /** Adds a source of jobs written later (see {@link JobSource}). */
  addSource(source: JobSource): void {
    this.#sources.push(source);
  }

  /** Lets every source write the jobs it was asked to write soon; workers call it before claiming. */
  async flushSources(): Promise<void> {
    for (const source of this.#sources) await source.flush();
  }

  /** Lets every source write what a crashed process left unwritten; workers call it at start and now and then. */
  async sweepSources(): Promise<void> {
    for (const source of this.#sources) await source.sweep();
  }

  /** Tells this process's workers that a job may be due now. */
  wake(): void {
    for (const listener of this.#wakeListeners) listener();
  }

  /** Subscribes a worker to wake-ups; answers the unsubscribe function. */
  onWake(listener: () => void): () => void {
    this.#wakeListeners.add(listener);
    return () => this.#wakeListeners.delete(listener);
  }
}

function runAt(now: number, options: EnqueueOptions): number {
  if (options.at !== undefined) {
    const at = options.at instanceof Date ? options.at.getTime() : options.at;
    if (!Number.isFinite(at)) throw new Error('enqueue: "at" must be a Date or epoch milliseconds');
    return Math.max(now, at);
  }
  if (options.delay !== undefined) {
    if (!Number.isFinite(options.delay) || options.delay < 0) throw new Error('enqueue: "delay" must be milliseconds >= 0');
    return now + options.delay;
  }
  return now;
}

function checkDefaults(d: HandlerDefaults, handler: string): void {
  if (d.timeout !== undefined && !(Number.isInteger(d.timeout) && d.timeout > 0 && d.timeout <= MAX_TIMEOUT_MS)) {
    throw new Error(`Job ${handler}: timeout must be whole milliseconds between 1 and ${MAX_TIMEOUT_MS}`);
  }
  if (d.maxRetries !== undefined && !(Number.isInteger(d.maxRetries) && d.maxRetries >= 0 && d.maxRetries <= MAX_RETRIES)) {
    throw new Error(`Job ${handler}: maxRetries must be a whole number between 0 and ${MAX_RETRIES}`);
  }
  if (d.queue !== undefined && (typeof d.queue !== 'string' || !NAME.test(d.queue))) {
    throw new Error(`Job ${handler}: queue must be an identifier such as "default" or "long"`);
  }
}
