import type { MaybePromise } from '../../async/maybe-promise.js';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '../../errors/index.js';
import type { BackupProgress, BroadcastChannel, Database, PoolStats, Queryable, Row, SqlStatement } from '../database.js';
import { PostgresBroadcast } from './postgres-broadcast.js';
import { pgDump, pgRestore } from './pg-tools.js';
import { DeferredCommits } from './deferred-commits.js';
import { PreparedStatements } from './prepared-statements.js';
import { RowDecoders } from './row-decoders.js';
import { PostgresConnection, type ConnectionMode, type PgClient } from './postgres-connection.js';
import { PostgresDialect } from './postgres-dialect.js';
import { isRetryableConflict, translatePostgresError } from './postgres-errors.js';
import { postgresTypeParsers } from './postgres-type-parsers.js';

/** The node-postgres pool methods we use. */
interface PgPool {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** How to reach the server and how long to wait for it. */
export interface PostgresDatabaseOptions {
  /** A `postgres://user:password@host:port/database` URL (libpq query options allowed). */
  readonly connectionString: string;
  /** Connections kept by this process; default 10. */
  readonly poolSize?: number;
  /** How long to wait for a connection (new or free in the pool); default 5 s. */
  readonly connectionTimeoutMs?: number;
  /** Server-side limit on one statement; default 30 s. */
  readonly statementTimeoutMs?: number;
  /** Keep hot statements prepared by name on each connection (default true); off for a pooler that cannot. */
  readonly preparedStatements?: boolean;
}

const DEFAULTS = { poolSize: 10, connectionTimeoutMs: 5_000, statementTimeoutMs: 30_000 };
/** The client gives up a little after the server would have, in case the server is gone. */
const CLIENT_GRACE_MS = 5_000;
const MAX_ATTEMPTS = 4;
const BACKOFF_BASE_MS = 15;
/**
 * Every connection speaks ISO dates and UTC, whatever the server's defaults, and its transactions
 * (autocommit statements included) are read-only unless begun READ WRITE: only `transaction()`
 * writes, and the server refuses a write anywhere else.
 */
const SESSION_SETUP = "set datestyle to 'ISO, YMD'; set timezone to 'UTC'; set default_transaction_read_only to on";

/** Thrown when a transaction's BEGIN fails on a dead connection: nothing ran, so it is safe to try again. */
class StaleConnection {
  constructor(readonly error: unknown) {}
}

function backoff(attempt: number): number {
  return BACKOFF_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
}

/**
 * A PostgreSQL database through a pool of node-postgres clients. Write transactions run at the
 * server's default isolation (READ COMMITTED); writers that read-modify-write lock rows with FOR
 * UPDATE. Read units are REPEATABLE READ, READ ONLY transactions: one snapshot, writes refused.
 */
export class PostgresDatabase implements Database {
  readonly dialect = new PostgresDialect();
  readonly #pool: PgPool;
  readonly #connectionString: string;
  readonly #deferredCommits = new DeferredCommits();
  /** Read back as SQLite returns values; shared by the pool's queries and the units' first messages. */
  readonly #types = postgresTypeParsers();
  readonly #decoders = new RowDecoders(this.#types);
  readonly #prepared: PreparedStatements | undefined;
  #closed = false;

  constructor(options: PostgresDatabaseOptions) {
    this.#connectionString = options.connectionString;
    this.#prepared = options.preparedStatements === false ? undefined : new PreparedStatements();
    const statementTimeout = options.statementTimeoutMs ?? DEFAULTS.statementTimeoutMs;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULTS.poolSize,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULTS.connectionTimeoutMs,
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + CLIENT_GRACE_MS,
      keepAlive: true,
      application_name: 'fw',
      types: this.#types,
      onConnect: async (client) => {
        // A connection whose server goes away while it is checked out (or still being set up)
        // emits 'error' on the client itself, where the pool listens only while it is idle; the
        // statement in flight fails with the same error and is answered 503, so the event itself
        // must not crash the process.
        (client as unknown as { on(event: 'error', listener: () => void): void }).on('error', () => {});
        await client.query(SESSION_SETUP);
      },
    });
    // An idle client whose server went away emits here; the pool has already dropped it, and the
    // next request will see the outage itself. Without a listener the process would crash.
    pool.on('error', () => {});
    this.#pool = pool as unknown as PgPool;
  }

  poolStats(): PoolStats {
    const pool = this.#pool;
    return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  /** A pooled client, and whether its previous user left a read transaction for it to commit first. */
  async #connect(mode: ConnectionMode): Promise<{ client: PgClient; conn: PostgresConnection }> {
    if (this.#closed) throw new ServiceUnavailableError('The database is closed');
    try {
      const client = await this.#pool.connect();
      const options = { commitFirst: this.#deferredCommits.take(client), decoders: this.#decoders, prepared: this.#prepared };
      return { client, conn: new PostgresConnection(client, mode, options) };
    } catch (err) {
      // Whatever stops us getting a connection (refused, timed out, bad credentials after a password
      // rotation, too many clients) means the site cannot serve this request now.
      const translated = translatePostgresError(err);
      throw translated instanceof ServiceUnavailableError ? translated : new ServiceUnavailableError('Database unavailable', { cause: err });
    }
  }

  /**
   * One pooled connection for the whole unit, in a REPEATABLE READ, READ ONLY transaction that
   * begins with its first statement (in the same message when that statement has no values) and
   * whose COMMIT travels with the next message on the connection (see DeferredCommits). A unit
   * that runs no statement opens no transaction.
   */
  async read<T>(work: (q: Queryable) => MaybePromise<T>): Promise<T> {
    const { client, conn } = await this.#connect('read');
    try {
      return await work(conn);
    } finally {
      // Marked before the release, which may hand the client straight to a waiting unit.
      if (conn.endRead() && !conn.unfitForReuse) this.#deferredCommits.defer(client);
      client.release(conn.unfitForReuse);
    }
  }

  /** Autocommit, read-only by the session's default. */
  async readOne<T = Row>(statement: SqlStatement): Promise<T[]> {
    const { client, conn } = await this.#connect('statement');
    try {
      return await conn.all<T>(statement);
    } finally {
      client.release(conn.unfitForReuse);
    }
  }

  async transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#transactionOnce(work);
      } catch (err) {
        const stale = err instanceof StaleConnection;
        const retryable = stale || isRetryableConflict(err);
        if (retryable && attempt < MAX_ATTEMPTS) {
          if (!stale) await sleep(backoff(attempt));
          continue;
        }
        if (stale) throw err.error;
        if (retryable) throw new ServiceUnavailableError('The database is busy; try again', { cause: err });
        throw err;
      }
    }
  }

  async #transactionOnce<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    const { client, conn } = await this.#connect('transaction');
    let destroy = false;
    try {
      // The transaction begins with the unit's first statement (PostgresConnection#begin).
      const result = await work(conn);
      await conn.finish('COMMIT');
      return result;
    } catch (err) {
      // A pooled connection found dead by the unit's first message: nothing ran, so try again.
      if (conn.lostAtBegin) {
        destroy = true;
        throw new StaleConnection(err);
      }
      try {
        await conn.finish('ROLLBACK');
      } catch {
        destroy = true;
      }
      throw err;
    } finally {
      client.release(destroy || conn.unfitForReuse);
    }
  }

  /** LISTEN/NOTIFY on a dedicated connection, big payloads through a table (see PostgresBroadcast). */
  broadcast(options: { listenUrl?: string } = {}): BroadcastChannel {
    // Its statements write (the message table, NOTIFY): they run as write transactions.
    return new PostgresBroadcast(options.listenUrl ?? this.#connectionString, {
      transaction: (work) => this.transaction(work),
      writeAlone: (statement) => this.#writeAlone(statement),
    });
  }

  /**
   * One statement as a transaction of its own in one round trip, its COMMIT not waiting for the
   * disk (PostgresConnection.writeAlone): a realtime message, which a crash loses anyway. Tried
   * once more on a connection found dead (a server restart leaves the pool's idle ones so).
   */
  async #writeAlone(statement: SqlStatement): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const { client, conn } = await this.#connect('transaction');
      let destroy = false;
      try {
        await conn.writeAlone(statement, { durable: false });
        return;
      } catch (err) {
        if (conn.unfitForReuse && attempt < 2) continue;
        throw err;
      } finally {
        try {
          await conn.finish('ROLLBACK');
        } catch {
          destroy = true;
        }
        client.release(destroy || conn.unfitForReuse);
      }
    }
  }

  /** pg_dump takes its own consistent snapshot; progress is the share of the tables it has begun. */
  async backup(toFile: string, onProgress?: BackupProgress): Promise<void> {
    if (!onProgress) return pgDump(this.#connectionString, toFile);
    const rows = await this.read((q) =>
      q.all<{ n: number | string }>({
        sql: "select count(*) as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
        parameters: [],
      }),
    );
    const tables = Math.max(1, Number(rows[0]?.n ?? 1));
    let begun = 0;
    onProgress(0);
    await pgDump(this.#connectionString, toFile, () => onProgress(Math.min(++begun, tables) / (tables + 1)));
    onProgress(1);
  }

  /** pg_restore in one transaction; tables the dump does not hold are left as they are. */
  async restore(fromFile: string): Promise<void> {
    await pgRestore(this.#connectionString, fromFile);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#deferredCommits.flushAll();
    // end() closes idle clients at once and the others as their work releases them.
    await this.#pool.end();
  }
}
