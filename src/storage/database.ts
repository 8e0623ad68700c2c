import type { MaybePromise } from '../async/maybe-promise.js';
import type { Dialect } from './dialect.js';

/** A compiled statement: SQL text with positional placeholders and its bound values. */
export interface SqlStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export type Row = Record<string, unknown>;

/** The few operations services need from a connection; driver types never leave storage/. */
export interface Queryable {
  /** Runs a statement that returns rows. */
  all<T = Row>(statement: SqlStatement): Promise<T[]>;
  /**
   * Runs a statement that returns rows and answers at once, where the engine runs statements in
   * process (SQLite); absent where each one is a round trip. Lets the hot read path (a document GET)
   * answer without a promise per step (docs/benchmarks.md "Where a GET's time goes"); see statementRows().
   */
  allNow?<T = Row>(statement: SqlStatement): T[];
  /** Runs a statement for its effect; `changes` is the number of rows written. */
  run(statement: SqlStatement): Promise<{ changes: number }>;
  /** Runs a statement and yields rows one at a time, so a large result never sits in memory whole. */
  iterate<T = Row>(statement: SqlStatement): AsyncIterable<T>;
  /**
   * A number that changes whenever a commit becomes visible to this connection that it did not make
   * itself, where the engine offers one cheaply (SQLite's `PRAGMA data_version` on its read-only
   * connection). Lets a cache skip re-reading state that nobody can have changed since; absent
   * where it cannot be trusted (a connection that also writes would miss its own commits).
   */
  changeCounter?(): number;
  /**
   * Where every statement costs a round trip (a PostgreSQL read or write unit that has not begun):
   * `check` travels in one message with the unit's first statement, and `isCurrent` judges its rows. When
   * they show things stale, that statement and every later one throw {@link StaleCheck}, and the
   * unit must run again once the caller has refreshed what the check guards. Undefined where a
   * statement is cheap (SQLite) or the unit has already begun: check at once then.
   */
  deferCheck?(check: SqlStatement, isCurrent: (rows: Row[]) => boolean): DeferredCheck | undefined;
  /**
   * Where every statement costs a round trip (a PostgreSQL write unit): queues a write whose answer
   * nobody waits for. It travels with the unit's next message, at the latest its COMMIT, so the
   * last write of a unit costs no round trip of its own (docs/architecture.md "Writes that travel
   * with the COMMIT"). When it fails, whatever statement or COMMIT carried it throws
   * `describe(error)`, and nothing after it in that message ran. Undefined where a statement is
   * cheap (SQLite) or the connection does not write: run the statement at once then.
   */
  runLater?(statement: SqlStatement, describe: (error: unknown) => unknown): void;
}

/** A check sent with a unit's first statement (see Queryable.deferCheck). */
export interface DeferredCheck {
  /**
   * Whether the check found things current: known once a statement carried it; for a unit that
   * ran none, the check runs now on its own. False means nothing the unit produced may be used.
   */
  settle(): Promise<boolean>;
}

/** Thrown by the statements of a unit whose deferred check found things stale (Queryable.deferCheck). */
export class StaleCheck extends Error {
  constructor() {
    super('the unit of work began on stale state and must run again');
  }
}

/** How busy a database's connections are at one moment (metrics: docs/deployment.md "Metrics"). */
export interface PoolStats {
  /** Connections held by units of work (SQLite: readers held, and the writer while a transaction runs). */
  readonly inUse: number;
  /** Open connections nobody holds. */
  readonly idle: number;
  /** Units waiting for a connection (SQLite: write transactions waiting for the writer). */
  readonly waiting: number;
}

/** The database of one site: read-only units of work and transactions. */
export interface Database {
  readonly dialect: Dialect;
  /** The connections' state now. */
  poolStats(): PoolStats;
  /**
   * Runs `work` as a read unit: a read-only transaction in which every statement sees one snapshot
   * (SQLite: a read transaction on a read-only connection; PostgreSQL: REPEATABLE READ, READ ONLY).
   * A write inside it is refused by the database itself, as a 403 PermissionError whose details
   * carry `readOnlyRequest` (see read-only-refusal.ts). Rows of `iterate` come from a snapshot of
   * their own on SQLite (a cursor needs a connection to itself there). Where statements run in
   * process (SQLite) and `work` answers at once, so does this: no promise for a GET that needs none.
   */
  read<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  read<T>(work: (q: Queryable) => MaybePromise<T>): MaybePromise<T>;
  /**
   * Runs one reading statement on its own: a single statement is its own snapshot, so no
   * transaction is opened around it (PostgreSQL: autocommit on a connection whose transactions are
   * read-only by default). A write is refused as in `read`.
   */
  readOne<T = Row>(statement: SqlStatement): Promise<T[]>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * Serialisation failures and deadlocks are retried by the dialect before giving up.
   */
  transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Writes a copy of the whole database into the new file `toFile` while the database stays in use
   * (SQLite: the online backup API; PostgreSQL: `pg_dump --format=custom`). `onProgress` gets the
   * fraction done where the engine reports one.
   */
  backup(toFile: string, onProgress?: BackupProgress): Promise<void>;
  /**
   * Replaces the contents of the database with a copy that `backup()` of the same engine wrote
   * (SQLite: the backup API in reverse; PostgreSQL: `pg_restore --clean`).
   */
  restore(fromFile: string, onProgress?: BackupProgress): Promise<void>;
  /** Finishes the work in flight and closes every connection. */
  close(): Promise<void>;
  /**
   * A channel to every process connected to this database, where the engine offers one
   * (PostgreSQL LISTEN/NOTIFY); absent on SQLite, whose processes share a machine and a primary.
   * `listenUrl` is where the listening connection goes when the pool's URL cannot LISTEN (a
   * transaction-mode pooler).
   */
  broadcast?(options?: { listenUrl?: string }): BroadcastChannel;
}

/** What a broadcast channel hands received messages to. */
export interface BroadcastHandlers {
  /** A message, with an id that is the same in every process; ids increase in commit order. */
  message(id: string, payload: string): void;
  /** Messages may have been missed (the listening connection was lost for too long). */
  gap(reason: string): void;
}

/** Text messages to every process of a database, this one included; best effort, replayed after short outages. */
export interface BroadcastChannel {
  open(handlers: BroadcastHandlers): Promise<void>;
  send(payload: string): Promise<void>;
  close(): Promise<void>;
}

/** The fraction (0..1) of a backup or restore done. */
export type BackupProgress = (fraction: number) => void;

/** The rows of a statement: at once where the connection answers synchronously (Queryable.allNow), else a promise. */
export function statementRows<T = Row>(q: Queryable, statement: SqlStatement): MaybePromise<T[]> {
  return q.allNow ? q.allNow<T>(statement) : q.all<T>(statement);
}
