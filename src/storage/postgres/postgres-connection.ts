import type { Queryable, Row, SqlStatement } from '../database.js';
import { isConnectionFailure, translatePostgresError } from './postgres-errors.js';

/** The part of a node-postgres result we read. */
export interface PgResult {
  rows: Row[];
  rowCount: number | null;
}

/** The node-postgres client methods we use; driver types stay inside this folder. */
export interface PgClient {
  query(config: { text: string; values?: unknown[] }): Promise<PgResult>;
  release(destroy?: boolean): void;
}

/** Rows fetched per round trip while iterating: large enough to amortise latency, small enough to stream. */
const FETCH_SIZE = 500;

/** Columns that hold flags are integers on both engines, so booleans bind as 1/0 as they do on SQLite. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * One pooled client seen through the Queryable port. `inTransaction` says whether the caller has
 * opened a transaction; iteration needs one for its cursor and opens its own otherwise.
 */
export class PostgresConnection implements Queryable {
  readonly #client: PgClient;
  readonly #inTransaction: boolean;
  #openCursors = 0;
  #cursorSeq = 0;
  #broken = false;

  constructor(client: PgClient, options: { inTransaction: boolean }) {
    this.#client = client;
    this.#inTransaction = options.inTransaction;
  }

  /** True when the connection must not go back to the pool: it failed, or a cursor was abandoned open. */
  get unfitForReuse(): boolean {
    return this.#broken || (!this.#inTransaction && this.#openCursors > 0);
  }

  /** Runs SQL text with no parameters (transaction control). */
  async exec(text: string): Promise<void> {
    await this.#query(text, undefined);
  }

  async #query(text: string, values: unknown[] | undefined): Promise<PgResult> {
    try {
      return await this.#client.query(values === undefined ? { text } : { text, values });
    } catch (err) {
      if (isConnectionFailure(err)) this.#broken = true;
      throw translatePostgresError(err);
    }
  }

  async all<T = Row>(s: SqlStatement): Promise<T[]> {
    return (await this.#query(s.sql, bindable(s.parameters))).rows as T[];
  }

  async run(s: SqlStatement): Promise<{ changes: number }> {
    return { changes: (await this.#query(s.sql, bindable(s.parameters))).rowCount ?? 0 };
  }

  /**
   * Streams a SELECT through a server-side cursor. The client queues statements in the order they
   * are issued, so other statements may run on this connection between batches.
   */
  async *iterate<T = Row>(s: SqlStatement): AsyncIterable<T> {
    const cursor = `fw_cursor_${++this.#cursorSeq}`;
    // Outside a caller's transaction the first open cursor begins one and the last one ends it.
    const ownTransaction = !this.#inTransaction;
    const begins = ownTransaction && this.#openCursors++ === 0;
    let failed = false;
    try {
      if (begins) await this.exec('BEGIN');
      await this.#query(`declare ${cursor} no scroll cursor for ${s.sql}`, bindable(s.parameters));
      for (;;) {
        const { rows } = await this.#query(`fetch ${FETCH_SIZE} from ${cursor}`, undefined);
        for (const row of rows) yield row as T;
        if (rows.length < FETCH_SIZE) break;
      }
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      // After a failure the transaction is aborted and refuses CLOSE; ending it drops the cursor.
      try {
        if (!failed) await this.exec(`close ${cursor}`);
      } finally {
        if (ownTransaction && --this.#openCursors === 0) await this.exec(failed ? 'ROLLBACK' : 'COMMIT');
      }
    }
  }
}
