import BetterSqlite3 from 'better-sqlite3';
import type { BackupProgress, Database, PoolStats, Queryable, Row, SqlStatement } from '../database.js';
import type { MaybePromise } from '../../async/maybe-promise.js';
import { AsyncMutex } from '../async-mutex.js';
import { rowBuilder, type RowBuilder } from './row-builder.js';
import { copyDatabase, restoreDatabaseFile } from './sqlite-backup.js';
import { SqliteDialect } from './sqlite-dialect.js';
import { translateSqliteError } from './sqlite-errors.js';
import { ServiceUnavailableError } from '../../errors/index.js';
import { KeptSnapshot } from './kept-snapshot.js';
import { sqliteRows } from './sqlite-rows.js';

type Connection = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

const STATEMENT_CACHE_SIZE = 512;
const BUSY_TIMEOUT_MS = 5000;

/**
 * Page cache of the reader connection, in KiB (SQLite's negative cache_size): all a hot working set
 * of pages needs; the operating system's file cache holds the rest, and every page cached here
 * counts in the process's memory.
 */
const PAGE_CACHE_KIB = 8000;
/**
 * Page cache of the writer: a write touches a few pages per index, which the OS file cache serves
 * well, so a large cache here mostly raised the peak memory of bulk inserts.
 */
const WRITER_PAGE_CACHE_KIB = 4000;
/**
 * Page cache of a connection opened for one iteration: a cursor reads each page once, so a large
 * cache would only fill with pages never read again (and count in the process's memory).
 */
const CURSOR_PAGE_CACHE_KIB = 1024;
/** Page cache of a reader opened while the first one is held by a unit that waits on I/O. */
const SPARE_PAGE_CACHE_KIB = 4000;

function openConnection(file: string, readonly: boolean, cacheKiB = PAGE_CACHE_KIB): Connection {
  const db = new BetterSqlite3(file, { readonly: readonly && file !== ':memory:', timeout: BUSY_TIMEOUT_MS });
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = OFF');
  db.pragma(`cache_size = -${cacheKiB}`);
  db.defaultSafeIntegers(false);
  return db;
}

/** better-sqlite3 refuses booleans and undefined; everything else binds as it is. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * A prepared statement; one that returns rows reads them as arrays, turned into objects by the
 * builder made for its columns (see row-builder.ts).
 */
interface Prepared {
  readonly stmt: Statement;
  readonly build: RowBuilder | undefined;
}

function prepareRaw(db: Connection, text: string): Prepared {
  const stmt = db.prepare(text);
  if (!stmt.reader) return { stmt, build: undefined };
  const build = rowBuilder(stmt.columns().map((c) => c.name));
  return { stmt: stmt.raw(true), build };
}

/** The rows of a statement one at a time, as objects (a plain iterator: no generator resumption per row). */
function iterateRows(db: Connection, s: SqlStatement): Iterator<Row> {
  const { stmt, build } = prepareRaw(db, s.sql);
  if (!build) throw new TypeError('iterate() needs a statement that returns rows');
  const rows = stmt.iterate(...bindable(s.parameters)) as IterableIterator<unknown[]>;
  return {
    next: () => {
      const step = rows.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: build(step.value) };
    },
    return: () => {
      rows.return?.();
      return { done: true, value: undefined };
    },
  };
}

/** A connection with a bounded cache of prepared statements, so a query shape is prepared once. */
class SqliteConnection implements Queryable {
  readonly #db: Connection;
  readonly #statements = new Map<string, Prepared>();
  #dataVersion: Statement | undefined;

  constructor(db: Connection) {
    this.#db = db;
  }

  get raw(): Connection {
    return this.#db;
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  #prepare(text: string): Prepared {
    let prepared = this.#statements.get(text);
    if (prepared) return prepared;
    prepared = prepareRaw(this.#db, text);
    if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
      this.#statements.delete(this.#statements.keys().next().value as string);
    }
    this.#statements.set(text, prepared);
    return prepared;
  }

  /** Runs one statement without results (transaction control), prepared once like the others. */
  control(text: 'BEGIN' | 'BEGIN IMMEDIATE' | 'COMMIT' | 'ROLLBACK'): void {
    this.#prepare(text).stmt.run();
  }

  allNow<T>(s: SqlStatement): T[] {
    try {
      const { stmt, build } = this.#prepare(s.sql);
      if (!build) {
        stmt.run(...bindable(s.parameters));
        return [];
      }
      const rows = stmt.all(...bindable(s.parameters)) as unknown[][];
      return rows.map(build) as T[];
    } catch (err) {
      throw translateSqliteError(err);
    }
  }

  async all<T = Row>(s: SqlStatement): Promise<T[]> {
    return this.allNow<T>(s);
  }

  async run(s: SqlStatement): Promise<{ changes: number }> {
    try {
      const { stmt, build } = this.#prepare(s.sql);
      if (build) {
        stmt.all(...bindable(s.parameters));
        return { changes: 0 };
      }
      return { changes: stmt.run(...bindable(s.parameters)).changes };
    } catch (err) {
      throw translateSqliteError(err);
    }
  }

  iterate<T = Row>(s: SqlStatement): AsyncIterable<T> {
    // A statement being iterated keeps its connection busy, so iteration happens on a connection
    // nobody else uses (see SqliteDatabase.read).
    return sqliteRows<T>(() => iterateRows(this.#db, s));
  }

  /** `PRAGMA data_version`: changes when another connection commits (never for this one's own commits). */
  dataVersion(): number {
    this.#dataVersion ??= this.#db.prepare('PRAGMA data_version').pluck();
    return this.#dataVersion.get() as number;
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }
}

/** Idle reader connections kept beyond the first; more are opened while units hold them all. */
const SPARE_READERS = 3;

/**
 * A reader connection and the Queryable its units see. One read unit holds it at a time, from its
 * BEGIN to its COMMIT, so statements of another unit never run inside that unit's snapshot.
 */
interface Reader {
  readonly conn: SqliteConnection;
  readonly facade: Queryable;
}

/**
 * The embedded database: one writer connection whose transactions take turns (SQLite has one
 * writer at a time), and reader connections that WAL mode lets read alongside the writer. A read
 * unit is a read transaction on a reader (one snapshot for all its statements); readers are opened
 * read-only, so SQLite itself refuses a write there.
 */
export class SqliteDatabase implements Database {
  readonly dialect = new SqliteDialect();
  readonly #file: string;
  readonly #writer: SqliteConnection;
  /** The first reader: kept open for the database's life, and the one with a change counter. */
  readonly #reader: SqliteConnection;
  /** The first reader's read transaction, kept across units while nobody commits (file databases only). */
  readonly #kept: KeptSnapshot | undefined;
  readonly #idleReaders: Reader[] = [];
  /** An in-memory database has one connection: its reads run on the writer, as they always did. */
  readonly #memoryFacade: Queryable | undefined;
  readonly #writeLock = new AsyncMutex();
  #closed = false;

  /**
   * `readOnly`: every connection, the writer's too, is opened read-only (no WAL switch, nothing
   * written), for work that only reads, such as a backup of a site whose folder is read-only.
   */
  constructor(file: string, options: { readOnly?: boolean } = {}) {
    this.#file = file;
    const readOnly = options.readOnly === true && file !== ':memory:';
    this.#writer = new SqliteConnection(openConnection(file, readOnly, file === ':memory:' ? PAGE_CACHE_KIB : WRITER_PAGE_CACHE_KIB));
    if (file === ':memory:') {
      const writer = this.#writer;
      this.#reader = writer;
      // No snapshot and no refusal here: a second connection to :memory: would be another database.
      this.#memoryFacade = { all: (s) => writer.all(s), allNow: (s) => writer.allNow(s), run: (s) => writer.run(s), iterate: (s) => this.#allAsRows(s) };
      this.#kept = undefined;
      return;
    }
    this.#reader = new SqliteConnection(openConnection(file, true));
    const kept = new KeptSnapshot(this.#reader, file);
    this.#kept = kept;
    const first = this.#makeReader(this.#reader);
    // The reader never writes, so every commit (this process's writer's included) changes its
    // data_version. Only the first reader answers it: the counter the metadata check compares
    // must come from one connection.
    first.facade.changeCounter = () => kept.changeCounter();
    this.#idleReaders.push(first);
  }

  #makeReader(conn: SqliteConnection): Reader {
    // Statements run on the unit's connection, except iteration, which gets a connection of its own
    // (a statement being stepped keeps its connection busy): its rows come from a snapshot of their own.
    const facade: Queryable = {
      all: (s) => conn.all(s),
      allNow: (s) => conn.allNow(s),
      run: (s) => conn.run(s),
      iterate: (s) => this.#iterateOnOwnConnection(s),
    };
    return { conn, facade };
  }

  /** Readers held by units of work now (metrics). */
  #readersOut = 0;

  poolStats(): PoolStats {
    const writerBusy = this.#writeLock.held ? 1 : 0;
    return {
      inUse: this.#readersOut + writerBusy,
      idle: this.#idleReaders.length + 1 - writerBusy,
      waiting: this.#writeLock.waiting,
    };
  }

  #takeReader(): Reader {
    if (this.#closed) throw new ServiceUnavailableError('The database is closed');
    this.#readersOut++;
    return this.#idleReaders.pop() ?? this.#makeReader(new SqliteConnection(openConnection(this.#file, true, SPARE_PAGE_CACHE_KIB)));
  }

  #returnReader(reader: Reader): void {
    this.#readersOut--;
    if (this.#closed || (reader.conn !== this.#reader && this.#idleReaders.length > SPARE_READERS)) {
      reader.conn.close();
      return;
    }
    // The first reader goes last into the stack, so the next unit takes it (its counter saves a read).
    if (reader.conn === this.#reader) this.#idleReaders.push(reader);
    else this.#idleReaders.unshift(reader);
  }

  /**
   * A read transaction on a reader of its own: every statement of `work` sees the snapshot its
   * first read took (BEGIN is deferred). On the first reader the transaction is kept for the next
   * unit while nobody commits (see KeptSnapshot); on another it ends with the unit.
   */
  read<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  read<T>(work: (q: Queryable) => MaybePromise<T>): MaybePromise<T>;
  read<T>(work: (q: Queryable) => MaybePromise<T>): MaybePromise<T> {
    if (this.#memoryFacade) return work(this.#memoryFacade);
    const reader = this.#takeReader();
    this.#beginUnit(reader);
    let outcome: MaybePromise<T>;
    try {
      outcome = work(reader.facade);
    } catch (err) {
      this.#endUnit(reader);
      throw err;
    }
    // Work that answered at once ends its unit at once; only work that waits holds the reader.
    if (!(outcome instanceof Promise)) {
      this.#endUnit(reader);
      return outcome;
    }
    return outcome.finally(() => this.#endUnit(reader));
  }

  /** One statement is its own snapshot: no transaction around it, or the first reader's kept one. */
  async readOne<T = Row>(statement: SqlStatement): Promise<T[]> {
    if (this.#memoryFacade) return this.#memoryFacade.all<T>(statement);
    const reader = this.#takeReader();
    const first = reader.conn === this.#reader;
    if (first) this.#kept?.enter();
    try {
      return reader.conn.allNow<T>(statement);
    } finally {
      if (first) this.#kept?.leave();
      this.#returnReader(reader);
    }
  }

  #beginUnit(reader: Reader): void {
    if (reader.conn === this.#reader && this.#kept) this.#kept.enter();
    else reader.conn.control('BEGIN');
  }

  #endUnit(reader: Reader): void {
    if (reader.conn === this.#reader && this.#kept) this.#kept.leave();
    else if (reader.conn.inTransaction) reader.conn.control('COMMIT');
    this.#returnReader(reader);
  }

  #iterateOnOwnConnection<T>(s: SqlStatement): AsyncIterable<T> {
    if (this.#file === ':memory:') return this.#allAsRows<T>(s);
    let conn: SqliteConnection | undefined;
    return sqliteRows<T>(
      () => {
        conn = new SqliteConnection(openConnection(this.#file, true, CURSOR_PAGE_CACHE_KIB));
        return iterateRows(conn.raw, s);
      },
      () => conn?.close(),
    );
  }

  /** An in-memory database has no second connection to iterate on: its rows come from one fetch. */
  async *#allAsRows<T>(s: SqlStatement): AsyncIterable<T> {
    yield* await this.#writer.all<T>(s);
  }

  async transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    return this.#writeLock.run(async () => {
      try {
        this.#writer.control('BEGIN IMMEDIATE');
      } catch (err) {
        throw translateSqliteError(err);
      }
      try {
        const result = await work(this.#writer);
        this.#writer.control('COMMIT');
        // The kept snapshot is stale now; ending it at once lets this commit's checkpoint run past it.
        this.#kept?.release();
        return result;
      } catch (err) {
        if (this.#writer.raw.inTransaction) this.#writer.control('ROLLBACK');
        throw err;
      }
    });
  }

  /** Copies from the writer connection between transactions; this process's writes wait for it. */
  async backup(toFile: string, onProgress?: BackupProgress): Promise<void> {
    await this.#writeLock.run(() => copyDatabase(this.#writer.raw, toFile, onProgress));
  }

  /** Other processes with the file open see the restored contents; stop them first all the same. */
  async restore(fromFile: string, onProgress?: BackupProgress): Promise<void> {
    if (this.#file === ':memory:') throw new Error('An in-memory SQLite database cannot be restored into');
    await this.#writeLock.run(() => {
      this.#kept?.release();
      return restoreDatabaseFile(fromFile, this.#file, onProgress);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Wait for the transaction in flight, then close.
    await this.#writeLock.run(async () => {
      // Readers held by a unit in flight close when it returns them (#returnReader).
      this.#kept?.close();
      for (const reader of this.#idleReaders) reader.conn.close();
      this.#idleReaders.length = 0;
      this.#writer.close();
    });
  }
}
