import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { ServiceUnavailableError } from '../errors/index.js';
import type { Database, Queryable, SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import type { JobSource } from './job-queue.js';

/**
 * CREATE TABLE of an outbox, idempotent (run at every site open with the other system tables). It
 * has no index, not even a primary key: on SQLite a row then costs the write that makes it one
 * b-tree page at commit, where a record with its indexes costs one page per index
 * (docs/benchmarks.md "What a subsystem costs"). Rows leave within a batch, so the scan a batch
 * makes stays small.
 */
export function outboxTableStatement(dialect: Dialect, table: string): SqlStatement {
  const type = (spec: Parameters<Dialect['columnType']>[0]) => sql.raw(dialect.columnType(spec));
  return dialect.builder.schema
    .createTable(table)
    .ifNotExists()
    .addColumn('name', type({ kind: 'varchar', length: 64 }), (c) => c.notNull())
    .addColumn('entry', type({ kind: 'text' }), (c) => c.notNull())
    .compile();
}

/** The unit an entry is written in: its connection and what runs once it committed. */
export interface OutboxUnit {
  readonly q: Queryable;
  readonly unit: { afterCommit(fn: () => void | Promise<void>): void };
}

/** What an outbox is made of. */
export interface OutboxParts<Entry, Scope extends { readonly q: Queryable }> {
  readonly db: Database;
  /** Its table (see {@link outboxTableStatement}); `__` keeps it out of any DocType's reach. */
  readonly table: string;
  /** Opens the transaction of one batch and hands `work` what `apply` needs in it. */
  readonly transaction: (work: (scope: Scope) => Promise<number>) => Promise<number>;
  /** Applies the entries of one batch, oldest first, in the batch's transaction. */
  readonly apply: (scope: Scope, entries: Entry[]) => Promise<void>;
  /** Called once a batch committed (wakes the workers of the jobs it wrote, say). */
  readonly applied?: () => void;
  /** Where a failed batch is reported (its entries stay for the next flush or sweep, each alone; see #drainEachAlone), and an entry set aside. */
  readonly report: (err: unknown) => void;
  /** How long a batch collects after the first commit that asked for one, in ms. */
  readonly batchMs: number;
  /**
   * Whether a batch must wait for another process's batch instead of skipping its rows (PostgreSQL
   * `FOR UPDATE` rather than `SKIP LOCKED`): where entries of one document must apply in the order
   * they were written, across processes too.
   */
  readonly inOrder: boolean;
}

/** Entries taken per transaction: bounds a batch's statements. */
const BATCH_LIMIT = 500;

/** Names sort as written in this process (time, then a counter), with random digits to tell processes apart. */
let counter = 0;
const processTag = randomBytes(4).toString('hex');
function entryName(now: number): string {
  counter = (counter + 1) % 0x100000000;
  return `${now.toString(16).padStart(12, '0')}-${counter.toString(16).padStart(8, '0')}-${processTag}`;
}

/** The INSERT, compiled once per (dialect, table): it runs inside every write that makes an entry. */
const insertShape = perOwner((dialect: Dialect) => {
  const byTable = new Map<string, (name: unknown, entry: unknown) => SqlStatement>();
  return (table: string) => {
    let shape = byTable.get(table);
    if (!shape) {
      shape = statementShape(2, (name: unknown, entry: unknown) => dialect.builder.insertInto(table).values({ name, entry }).compile());
      byTable.set(table, shape);
    }
    return shape;
  };
});

/**
 * Work a write hands on to be done right after its commit, durably (docs/jobs.md "Job sources"):
 * the write adds one row to an unindexed table in its own transaction, so the entry exists exactly
 * when the change commits; once it committed, a batch collecting the commits of `batchMs` takes
 * every waiting entry and applies them in one transaction of its own, so many writes share the
 * cost of the records, indexes and commit the entries become. As a job source of the site's queue
 * it is flushed before a worker claims and when the site closes, and swept at worker start and now
 * and then, which picks up the entries of a process killed between its commit and its batch.
 * Webhook deliveries, Email Notifications and Workflow Actions each have one, with a table of their own.
 */
export class AfterCommitOutbox<Entry, Scope extends { readonly q: Queryable }> implements JobSource {
  readonly #parts: OutboxParts<Entry, Scope>;
  #timer: NodeJS.Timeout | undefined;
  #asked = false;
  #draining: Promise<void> = Promise.resolve();

  constructor(parts: OutboxParts<Entry, Scope>) {
    this.#parts = parts;
  }

  /**
   * Writes `entry` in the unit's transaction; a batch applies it soon after the unit committed.
   * Answers the row's name, for {@link rewrite}.
   */
  async write(unit: OutboxUnit, entry: Entry): Promise<string> {
    const { db, table } = this.#parts;
    const name = entryName(Date.now());
    await unit.q.run(insertShape(db.dialect)(table)(name, JSON.stringify(entry)));
    // Registered with each row: a savepoint that rolls back forgets what was registered inside it.
    unit.unit.afterCommit(() => this.nudge());
    return name;
  }

  /**
   * Replaces the entry of row `name`, written by {@link write} in the same unit (which has not
   * committed, so no batch can have taken it): a second change in one unit that must leave as one
   * entry carrying the last state.
   */
  async rewrite(q: Queryable, name: string, entry: Entry): Promise<void> {
    const { db, table } = this.#parts;
    await q.run(
      db.dialect.builder
        .updateTable(table)
        .set({ entry: JSON.stringify(entry) })
        .where('name', '=', name)
        .compile(),
    );
  }

  /** An entry committed: a batch runs soon, collecting the commits until then. */
  nudge(): void {
    this.#asked = true;
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.#parts.batchMs);
    // A batch never keeps a process alive: closing the site flushes, and a sweep finds the rest.
    this.#timer.unref();
  }

  /** Applies the batch this process asked for, if any. */
  async flush(): Promise<void> {
    if (!this.#asked) return this.#draining;
    return this.#drain();
  }

  /** Applies whatever waits in the outbox, whoever wrote it. */
  async sweep(): Promise<void> {
    const { db, table } = this.#parts;
    try {
      const waiting = await db.read((q) => q.all(db.dialect.builder.selectFrom(table).select('name').limit(1).compile()));
      if (waiting.length === 0) return;
    } catch (err) {
      this.#parts.report(err);
      return;
    }
    return this.#drain();
  }

  /** One drain at a time per process. */
  #drain(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#asked = false;
    this.#draining = this.#draining.then(() => this.#drainAll());
    return this.#draining;
  }

  async #drainAll(): Promise<void> {
    try {
      let applied = 0;
      for (;;) {
        const taken = await this.#parts.transaction(async (scope) => {
          const entries = await this.#take(scope.q);
          if (entries.length > 0) await this.#parts.apply(scope, entries);
          return entries.length;
        });
        applied += taken;
        if (taken < BATCH_LIMIT) break;
      }
      if (applied > 0) this.#parts.applied?.();
    } catch (err) {
      this.#parts.report(err);
      await this.#drainEachAlone();
    }
  }

  /**
   * After a failed batch: each entry in a transaction of its own, oldest first, so an entry that
   * fails every time (a mail that cannot be composed, say) is set aside and reported with what it
   * held, instead of rolling back every batch after it and holding back every later entry. The row
   * set aside is the one that failed, by name: with `SKIP LOCKED` the oldest row may by then be
   * another process's, and one whose text is not even JSON fails and goes the same way. A database
   * that does not answer is no fault of the entry: the next flush or sweep tries again.
   */
  async #drainEachAlone(): Promise<void> {
    const { transaction, apply, report, table } = this.#parts;
    let applied = 0;
    for (let i = 0; i < BATCH_LIMIT; i++) {
      let failed: string | undefined;
      try {
        const taken = await transaction(async (scope) => {
          const rows = await this.#takeRows(scope.q, 1);
          failed = rows[0]?.name;
          if (rows.length > 0) await apply(scope, rows.map(parseEntry<Entry>));
          return rows.length;
        });
        if (taken === 0) break;
        applied += taken;
      } catch (err) {
        if (err instanceof ServiceUnavailableError) break;
        // Failed before it took a row (its transaction did not open): no entry is to blame.
        if (failed === undefined) {
          report(err);
          break;
        }
        let setAside: string[] = [];
        const name = failed;
        try {
          await transaction(async (scope) => {
            setAside = await this.#remove(scope.q, name);
            return setAside.length;
          });
        } catch (dropErr) {
          report(dropErr);
          break;
        }
        // Gone already: another process took it (and may apply it, or set it aside itself).
        if (setAside.length === 0) continue;
        report(new Error(`${table}: an entry failed on its own and was set aside: [${setAside.join(',').slice(0, 2000)}]`, { cause: err }));
      }
    }
    if (applied > 0) this.#parts.applied?.();
  }

  /** Removes up to BATCH_LIMIT entries, oldest first (see {@link #takeRows}). */
  async #take(q: Queryable): Promise<Entry[]> {
    return (await this.#takeRows(q, BATCH_LIMIT)).map(parseEntry<Entry>);
  }

  /**
   * Removes up to `limit` rows, oldest first, by one `DELETE ... RETURNING`, so two processes
   * draining at once never both get one (on SQLite write transactions take turns).
   */
  async #takeRows(q: Queryable, limit: number): Promise<OutboxRow[]> {
    const { db, table, inOrder } = this.#parts;
    const { dialect } = db;
    const b = dialect.builder;
    let oldest = b.selectFrom(table).select('name').orderBy('name').limit(limit);
    if (dialect.supportsRowLocks) oldest = inOrder ? oldest.forUpdate() : oldest.forUpdate().skipLocked();
    const rows = await q.all<OutboxRow>(b.deleteFrom(table).where('name', 'in', oldest).returning(['name', 'entry']).compile());
    // RETURNING promises no order.
    return rows.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /** Removes the row `name`, answering its entry's text (nothing when another process took it). */
  async #remove(q: Queryable, name: string): Promise<string[]> {
    const b = this.#parts.db.dialect.builder;
    const rows = await q.all<{ entry: string }>(b.deleteFrom(this.#parts.table).where('name', '=', name).returning('entry').compile());
    return rows.map((r) => String(r.entry));
  }
}

/** A row of an outbox table. */
interface OutboxRow {
  readonly name: string;
  readonly entry: string;
}

function parseEntry<Entry>(row: OutboxRow): Entry {
  return JSON.parse(String(row.entry)) as Entry;
}
