import type { Queryable, Row, SqlStatement } from '../database.js';
import { isConnectionFailure, translatePostgresError } from './postgres-errors.js';

/** The part of a node-postgres result we read. */
export interface PgResult {
  rows: Row[];
  rowCount: number | null;
}

/** The node-postgres client methods we use; driver types stay inside this folder. */
export interface PgClient {
  /** Several results when the text holds several statements (simple protocol, no values). */
  query(config: { text: string; values?: unknown[] }): Promise<PgResult | PgResult[]>;
  release(destroy?: boolean): void;
}

/** Rows fetched per round trip while iterating: large enough to amortise latency, small enough to stream. */
const FETCH_SIZE = 500;

/** Columns that hold flags are integers on both engines, so booleans bind as 1/0 as they do on SQLite. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/** How a read unit's transaction begins: one snapshot for all its statements, writes refused. */
const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * What the caller made of the connection: `transaction`, a write transaction it opened; `read`, a
 * read unit, whose read-only transaction this class opens with its first statement; `statement`,
 * autocommit (statements are read-only by the session's default, see postgres-database.ts).
 */
export type ConnectionMode = 'transaction' | 'read' | 'statement';

/**
 * One pooled client seen through the Queryable port. Iteration needs a transaction for its cursor
 * and opens its own in `statement` mode.
 */
export class PostgresConnection implements Queryable {
  readonly #client: PgClient;
  readonly #mode: ConnectionMode;
  /** In `read` mode: whether the read-only transaction has begun. */
  #begun = false;
  #openCursors = 0;
  #cursorSeq = 0;
  #broken = false;
  /** The previous user's read transaction is still open: the first message commits it (see DeferredCommits). */
  #commitFirst: boolean;

  constructor(client: PgClient, mode: ConnectionMode, commitFirst = false) {
    this.#client = client;
    this.#mode = mode;
    this.#commitFirst = commitFirst;
  }

  /** True when the connection must not go back to the pool: it failed, or a cursor was abandoned open. */
  get unfitForReuse(): boolean {
    return this.#broken || (this.#mode === 'statement' && this.#openCursors > 0);
  }

  /** Runs SQL text with no parameters (transaction control). */
  async exec(text: string): Promise<void> {
    await this.#send(text, undefined);
  }

  /**
   * Ends a read unit: true when its transaction is still open, for the next user of the connection
   * to commit in its first message (see DeferredCommits), a read-only transaction having nothing to
   * lose if the connection dies meanwhile.
   */
  endRead(): boolean {
    const open = this.#mode === 'read' && this.#begun;
    this.#begun = false;
    return open;
  }

  async #send(text: string, values: unknown[] | undefined): Promise<PgResult> {
    if (this.#commitFirst) {
      this.#commitFirst = false;
      if (values === undefined) text = `COMMIT; ${text}`;
      // A statement with values travels alone (the extended protocol): the COMMIT is queued before it.
      else this.#client.query({ text: 'COMMIT' }).catch(() => {});
    }
    try {
      const result = await this.#client.query(values === undefined ? { text } : { text, values });
      return Array.isArray(result) ? result[result.length - 1] : result;
    } catch (err) {
      if (isConnectionFailure(err)) this.#broken = true;
      throw translatePostgresError(err);
    }
  }

  /**
   * A statement; in a read unit the first one also begins its transaction. A statement without
   * values travels in the same message as the BEGIN (the simple protocol takes several statements),
   * which is the common case: every unit of work starts with the parameterless metadata check.
   */
  #query(text: string, values: unknown[]): Promise<PgResult> {
    if (this.#mode !== 'read' || this.#begun) return this.#send(text, values);
    this.#begun = true;
    if (values.length === 0) return this.#send(`${BEGIN_READ}; ${text}`, undefined);
    return this.#send(BEGIN_READ, undefined).then(() => this.#send(text, values));
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
    // In autocommit the first open cursor begins a transaction and the last one ends it; a read
    // unit's cursors live in its transaction.
    const ownTransaction = this.#mode === 'statement';
    const begins = ownTransaction && this.#openCursors++ === 0;
    let failed = false;
    try {
      if (begins) await this.exec('BEGIN');
      if (this.#mode === 'read' && !this.#begun) {
        this.#begun = true;
        await this.exec(BEGIN_READ);
      }
      await this.#query(`declare ${cursor} no scroll cursor for ${s.sql}`, bindable(s.parameters));
      for (;;) {
        const { rows } = await this.#send(`fetch ${FETCH_SIZE} from ${cursor}`, undefined);
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
