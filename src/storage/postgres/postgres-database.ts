import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '../../errors/index.js';
import type { BroadcastChannel, Database, Queryable } from '../database.js';
import { PostgresBroadcast } from './postgres-broadcast.js';
import { pgDump, pgRestore } from './pg-tools.js';
import { PostgresConnection, type PgClient } from './postgres-connection.js';
import { PostgresDialect } from './postgres-dialect.js';
import { isRetryableConflict, translatePostgresError } from './postgres-errors.js';
import { postgresTypeParsers } from './postgres-type-parsers.js';

/** The node-postgres pool methods we use. */
interface PgPool {
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
}

const DEFAULTS = { poolSize: 10, connectionTimeoutMs: 5_000, statementTimeoutMs: 30_000 };
/** The client gives up a little after the server would have, in case the server is gone. */
const CLIENT_GRACE_MS = 5_000;
const MAX_ATTEMPTS = 4;
const BACKOFF_BASE_MS = 15;
/** Every connection speaks ISO dates and UTC, whatever the server's defaults. */
const SESSION_SETUP = "set datestyle to 'ISO, YMD'; set timezone to 'UTC'";

/** Thrown when a transaction's BEGIN fails on a dead connection: nothing ran, so it is safe to try again. */
class StaleConnection {
  constructor(readonly error: unknown) {}
}

function backoff(attempt: number): number {
  return BACKOFF_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random());
}

/**
 * A PostgreSQL database through a pool of node-postgres clients. Transactions run at the server's
 * default isolation (READ COMMITTED); writers that read-modify-write lock rows with FOR UPDATE.
 */
export class PostgresDatabase implements Database {
  readonly dialect = new PostgresDialect();
  readonly #pool: PgPool;
  readonly #connectionString: string;
  #closed = false;

  constructor(options: PostgresDatabaseOptions) {
    this.#connectionString = options.connectionString;
    const statementTimeout = options.statementTimeoutMs ?? DEFAULTS.statementTimeoutMs;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULTS.poolSize,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULTS.connectionTimeoutMs,
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + CLIENT_GRACE_MS,
      keepAlive: true,
      application_name: 'fw',
      types: postgresTypeParsers(),
      onConnect: async (client) => {
        await client.query(SESSION_SETUP);
      },
    });
    // An idle client whose server went away emits here; the pool has already dropped it, and the
    // next request will see the outage itself. Without a listener the process would crash.
    pool.on('error', () => {});
    this.#pool = pool as unknown as PgPool;
  }

  async #connect(): Promise<PgClient> {
    if (this.#closed) throw new ServiceUnavailableError('The database is closed');
    try {
      return await this.#pool.connect();
    } catch (err) {
      // Whatever stops us getting a connection (refused, timed out, bad credentials after a password
      // rotation, too many clients) means the site cannot serve this request now.
      const translated = translatePostgresError(err);
      throw translated instanceof ServiceUnavailableError
        ? translated
        : new ServiceUnavailableError('Database unavailable', { cause: err });
    }
  }

  /**
   * One pooled connection for the whole unit of work, statements in autocommit: the port's "nothing
   * is committed" holds only because callers do not write here (SQLite's reader refuses writes).
   */
  async read<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    const conn = new PostgresConnection(client, { inTransaction: false });
    try {
      return await work(conn);
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
    const client = await this.#connect();
    const conn = new PostgresConnection(client, { inTransaction: true });
    let destroy = false;
    try {
      try {
        await conn.exec('BEGIN');
      } catch (err) {
        destroy = true;
        throw conn.unfitForReuse ? new StaleConnection(err) : err;
      }
      try {
        const result = await work(conn);
        await conn.exec('COMMIT');
        return result;
      } catch (err) {
        try {
          await conn.exec('ROLLBACK');
        } catch {
          destroy = true;
        }
        throw err;
      }
    } finally {
      client.release(destroy || conn.unfitForReuse);
    }
  }

  /** LISTEN/NOTIFY on a dedicated connection, big payloads through a table (see PostgresBroadcast). */
  broadcast(options: { listenUrl?: string } = {}): BroadcastChannel {
    return new PostgresBroadcast(options.listenUrl ?? this.#connectionString, (work) => this.read(work));
  }

  /** pg_dump takes its own consistent snapshot; it reports no progress. */
  async backup(toFile: string): Promise<void> {
    await pgDump(this.#connectionString, toFile);
  }

  /** pg_restore in one transaction; tables the dump does not hold are left as they are. */
  async restore(fromFile: string): Promise<void> {
    await pgRestore(this.#connectionString, fromFile);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // end() closes idle clients at once and the others as their work releases them.
    await this.#pool.end();
  }
}
