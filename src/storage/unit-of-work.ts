/** Work that follows the end of a unit of work. */
export type UnitCallback = () => void | Promise<void>;

/** Where a callback that failed is reported; a failure never undoes what already committed. */
export type UnitErrorReporter = (err: unknown, phase: 'afterCommit' | 'afterRollback') => void;

/** A point in a unit's callback lists, taken when a savepoint opens (see {@link UnitOfWork.mark}). */
export interface UnitMark {
  readonly commits: number;
  readonly rollbacks: number;
}

/**
 * The callbacks of one unit of work (one transaction attempt, or one read): what must happen once
 * its writes are committed (live events, waking the job worker, clearing caches) and what must be
 * undone outside the database when they are rolled back (bytes placed on disk). Nothing registered
 * here runs inside the transaction, so a callback never sees uncommitted data leave the process
 * and a rolled-back write never reaches one (docs/architecture.md, "After a commit").
 */
export class UnitOfWork {
  readonly #commits: UnitCallback[] = [];
  readonly #rollbacks: UnitCallback[] = [];
  #ended = false;

  constructor(private readonly report: UnitErrorReporter) {}

  /** Runs `fn` once after this unit committed (after a read unit: once it ended without error). */
  afterCommit(fn: UnitCallback): void {
    this.#checkOpen();
    this.#commits.push(fn);
  }

  /** Runs `fn` once after this unit rolled back, or after the savepoint it was registered in did. */
  afterRollback(fn: UnitCallback): void {
    this.#checkOpen();
    this.#rollbacks.push(fn);
  }

  /**
   * Ends a unit that has no callbacks and answers true (the common case, which then costs nothing
   * more); answers false, leaving it open, when it has some to run.
   */
  seal(): boolean {
    if (this.#commits.length > 0 || this.#rollbacks.length > 0) return false;
    this.#ended = true;
    return true;
  }

  /** Where the lists stand now; a savepoint keeps it to forget what its rolled-back work asked for. */
  mark(): UnitMark {
    return { commits: this.#commits.length, rollbacks: this.#rollbacks.length };
  }

  /**
   * A savepoint opened at `mark` rolled back: the after-commit work registered since will never be
   * due (its writes are gone), and the after-rollback work registered since is due now.
   */
  async rolledBackTo(mark: UnitMark): Promise<void> {
    this.#commits.length = Math.min(this.#commits.length, mark.commits);
    const due = this.#rollbacks.splice(mark.rollbacks);
    await this.#runAll(due.reverse(), 'afterRollback');
  }

  /** The unit committed: runs the after-commit callbacks in the order they were registered. */
  async committed(): Promise<void> {
    this.#ended = true;
    this.#rollbacks.length = 0;
    await this.#runAll(this.#commits.splice(0), 'afterCommit');
  }

  /** The unit rolled back: runs the after-rollback callbacks, latest first (undo in reverse). */
  async rolledBack(): Promise<void> {
    this.#ended = true;
    this.#commits.length = 0;
    await this.#runAll(this.#rollbacks.splice(0).reverse(), 'afterRollback');
  }

  #checkOpen(): void {
    // A callback that registers more work after its unit ended would silently never run.
    if (this.#ended) throw new Error('This unit of work has ended; register callbacks while it is open');
  }

  async #runAll(callbacks: readonly UnitCallback[], phase: 'afterCommit' | 'afterRollback'): Promise<void> {
    for (const fn of callbacks) {
      try {
        await fn();
      } catch (err) {
        this.report(err, phase);
      }
    }
  }
}

/**
 * Runs `work` in a transaction of `transact` with a fresh unit per attempt (a retried attempt's
 * callbacks belong to writes that were rolled back), then runs the unit's after-commit or
 * after-rollback callbacks once the outcome is known.
 */
export async function runInUnit<Q, T>(
  transact: (work: (q: Q) => Promise<T>) => Promise<T>,
  report: UnitErrorReporter,
  work: (q: Q, unit: UnitOfWork) => Promise<T>,
): Promise<T> {
  let unit: UnitOfWork | undefined;
  let result: T;
  try {
    result = await transact(async (q) => {
      // An earlier attempt of this transaction was rolled back (serialisation failure, retried).
      if (unit) await unit.rolledBack();
      unit = new UnitOfWork(report);
      return work(q, unit);
    });
  } catch (err) {
    await unit?.rolledBack();
    throw err;
  }
  await unit?.committed();
  return result;
}
