import type pg from 'pg';
import { StaleCheck, type DeferredCheck, type Queryable, type Row, type SqlStatement } from '../database.js';
import { isConnectionFailure, translatePostgresError } from './postgres-errors.js';
import type { PreparedStatements } from './prepared-statements.js';
import type { RowDecoders } from './row-decoders.js';
import { PipelineError, StatementPipeline, type PgResult, type PipelinedStatement } from './statement-pipeline.js';

/** The node-postgres client methods we use; driver types stay inside this folder. */
export interface PgClient {
  /** Several results when the text holds several statements (simple protocol, no values). */
  query(config: { text: string; values?: unknown[] }): Promise<PgResult | PgResult[]>;
  /** Several statements in one round trip (see StatementPipeline). */
  query(pipeline: pg.Submittable): unknown;
  release(destroy?: boolean): void;
}

/** Rows fetched per round trip while iterating: large enough to amortise latency, small enough to stream. */
const FETCH_SIZE = 500;

/** Columns that hold flags are integers on both engines, so booleans bind as 1/0 as they do on SQLite. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * How a unit's transaction begins, with its first statement: a read unit's sees one snapshot and
 * refuses writes; a write transaction runs at the server's default isolation (READ COMMITTED).
 */
const BEGIN = { read: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', transaction: 'BEGIN READ WRITE' } as const;

/**
 * What the caller made of the connection: `transaction`, a write transaction, and `read`, a read
 * unit, whose transaction this class begins with the first statement and the caller ends with
 * `finish`; `statement`, autocommit (statements are read-only by the session's default, see
 * postgres-database.ts).
 */
export type ConnectionMode = 'transaction' | 'read' | 'statement';

/** A write queued by Queryable.runLater, and how its failure is described to the caller. */
interface LaterWrite {
  readonly step: PipelinedStatement;
  readonly describe: (error: unknown) => unknown;
}

/** A check waiting for a unit's first statement (Queryable.deferCheck), and its verdict once run. */
interface PendingCheck {
  readonly statement: SqlStatement;
  readonly isCurrent: (rows: Row[]) => boolean;
  verdict?: boolean;
}

/**
 * One pooled client seen through the Queryable port. Iteration needs a transaction for its cursor
 * and opens its own in `statement` mode.
 */
export class PostgresConnection implements Queryable {
  readonly #client: PgClient;
  readonly #mode: ConnectionMode;
  /** In `read` and `transaction` mode: whether the unit's transaction has begun. */
  #begun = false;
  /** The unit's first message failed because the connection was lost: nothing of the unit ran. */
  #lostAtBegin = false;
  #openCursors = 0;
  #cursorSeq = 0;
  #broken = false;
  /** The previous user's read transaction is still open: the first message commits it (see DeferredCommits). */
  #commitFirst: boolean;
  readonly #decoders: RowDecoders;
  /** Where a unit's first message keeps its statements prepared by name; none: parsed every time. */
  readonly #prepared: PreparedStatements | undefined;
  /** The check the unit's first statement carries, then its verdict. */
  #check: PendingCheck | undefined;
  /** Writes queued by runLater, sent before the unit's next statement or with its COMMIT. */
  #later: LaterWrite[] = [];

  constructor(client: PgClient, mode: ConnectionMode, options: { commitFirst: boolean; decoders: RowDecoders; prepared?: PreparedStatements }) {
    this.#client = client;
    this.#mode = mode;
    this.#commitFirst = options.commitFirst;
    this.#decoders = options.decoders;
    this.#prepared = options.prepared;
    if (mode === 'transaction') this.runLater = (statement, describe) => this.#queue(statement, describe);
  }

  /** True when the connection must not go back to the pool: it failed, or a cursor was abandoned open. */
  get unfitForReuse(): boolean {
    return this.#broken || (this.#mode === 'statement' && this.#openCursors > 0);
  }

  /** Runs SQL text with no parameters (cursor control). */
  async exec(text: string): Promise<void> {
    await this.#send(text, undefined);
  }

  /** True when the unit's first message failed for a lost connection: nothing ran, so it may be tried again. */
  get lostAtBegin(): boolean {
    return this.#lostAtBegin;
  }

  /**
   * Ends a write transaction with COMMIT or ROLLBACK; a unit that ran no statement has none to end
   * (only the previous user's read transaction, when it still waits for its COMMIT).
   */
  async finish(end: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    if (end === 'ROLLBACK') this.#later = [];
    else if (this.#later.length > 0) {
      // Queued writes but no statement yet: they go with the first message, whose check must be
      // judged before anything commits; otherwise they travel with the COMMIT itself.
      if (!this.#begun) {
        this.#begun = true;
        await this.#begin(undefined);
      } else {
        // Bound to names: a write without RETURNING has no result columns that a schema change
        // could alter, so a name parsed before one never fails where a fresh Parse would not.
        await this.#sendWithLater({ text: 'COMMIT', values: [] }, this.#prepared);
        this.#begun = false;
        return;
      }
    }
    if (this.#begun) {
      this.#begun = false;
      await this.#send(end, undefined);
    } else if (this.#commitFirst) {
      this.#commitFirst = false;
      await this.#send('COMMIT', undefined);
    }
  }

  /**
   * Ends a read unit: true when a transaction is still open on the connection (the unit's, or the
   * previous user's when the unit ran nothing), for the next user to commit in its first message
   * (see DeferredCommits), a read-only transaction having nothing to lose if the connection dies
   * meanwhile.
   */
  endRead(): boolean {
    const open = (this.#mode === 'read' && this.#begun) || this.#commitFirst;
    this.#begun = false;
    this.#commitFirst = false;
    return open;
  }

  async #send(text: string, values: unknown[] | undefined): Promise<PgResult> {
    if (this.#later.length > 0) return this.#sendWithLater({ text, values: values ?? [] });
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

  deferCheck(statement: SqlStatement, isCurrent: (rows: Row[]) => boolean): DeferredCheck | undefined {
    if (this.#mode === 'statement' || this.#begun || this.#check) return undefined;
    const check: PendingCheck = { statement, isCurrent };
    this.#check = check;
    return {
      settle: async () => {
        // No statement began the unit: the check begins it now, on its own (a failure to run it
        // is the unit's). Begun without a verdict: the first message failed before the check
        // ran, and that failure is already the unit's.
        if (!this.#begun) {
          this.#begun = true;
          await this.#begin(undefined);
        }
        return check.verdict ?? true;
      },
    };
  }

  /** Only a write transaction queues writes (Queryable.runLater); other modes refuse them at once. */
  readonly runLater?: (statement: SqlStatement, describe: (error: unknown) => unknown) => void;

  #queue(statement: SqlStatement, describe: (error: unknown) => unknown): void {
    this.#later.push({ step: { text: statement.sql, values: bindable(statement.parameters) }, describe });
  }

  /**
   * The queued writes and `last` as one pipeline in the begun transaction, bound to `prepared`'s
   * names when given: `last`'s answer, or the first failure, described by its write's `describe`
   * when a queued write failed. Past a failure the server skipped to the Sync, so the transaction
   * is left aborted for the caller's ROLLBACK.
   */
  async #sendWithLater(last: PipelinedStatement, prepared?: PreparedStatements): Promise<PgResult> {
    const later = this.#later;
    this.#later = [];
    try {
      const results = await StatementPipeline.run(this.#client, [...later.map((w) => w.step), last], this.#decoders, prepared);
      return results[results.length - 1];
    } catch (err) {
      if (!(err instanceof PipelineError)) throw err;
      if (isConnectionFailure(err.failure)) this.#broken = true;
      const error = translatePostgresError(err.failure);
      const failed = later[err.completed.length];
      throw failed ? failed.describe(error) : error;
    }
  }

  /** A statement; in a read or write unit the first one also begins its transaction (see #begin). */
  async #query(text: string, values: unknown[]): Promise<PgResult> {
    if (this.#check?.verdict === false) throw new StaleCheck();
    if (this.#mode === 'statement' || this.#begun) return this.#send(text, values);
    this.#begun = true;
    return this.#begin({ text, values });
  }

  /**
   * A unit's first message, one round trip whatever its statement: the previous user's COMMIT,
   * the BEGIN, the deferred check and the statement, as one pipeline; its answer is the last one.
   * When the check finds things stale, the statement's answer (or error) is not the unit's:
   * StaleCheck instead.
   */
  async #begin(statement: PipelinedStatement | undefined): Promise<PgResult> {
    const check = this.#check;
    const first: PipelinedStatement[] = this.#commitFirst ? [{ text: 'COMMIT', values: [] }] : [];
    this.#commitFirst = false;
    const unit: PipelinedStatement[] = [{ text: BEGIN[this.#mode === 'read' ? 'read' : 'transaction'], values: [] }];
    if (check) unit.push({ text: check.statement.sql, values: bindable(check.statement.parameters) });
    // Writes queued before the unit's first statement (runLater) run after its check, in order.
    const later = this.#later;
    this.#later = [];
    const laterAt = unit.length;
    for (const write of later) unit.push(write.step);
    if (statement) unit.push(statement);
    const judge = (results: readonly PgResult[], checkAt: number) => {
      if (!check || results.length <= checkAt) return;
      check.verdict = check.isCurrent(results[checkAt].rows);
      if (!check.verdict) throw new StaleCheck();
    };
    let sent = [...first, ...unit];
    let outcome = await this.#pipeline(sent);
    judge(outcome.results, first.length + 1);
    if (outcome.stalePlan) {
      // A statement prepared before a schema change (docs/benchmarks.md "Prepared statements on
      // PostgreSQL"): nothing of the unit ran, so once more, parsed afresh, after the failed BEGIN.
      sent = [{ text: 'ROLLBACK', values: [] }, ...unit];
      outcome = await this.#pipeline(sent);
      judge(outcome.results, 2);
    }
    const { results, failure } = outcome;
    if (failure !== undefined) {
      if (isConnectionFailure(failure)) this.#broken = this.#lostAtBegin = true;
      const error = translatePostgresError(failure);
      // The failing statement is the first without a result; the queued writes start at laterAt of the unit.
      const firstLater = sent.length - unit.length + laterAt;
      const failedWrite = later[results.length - firstLater];
      throw failedWrite ? failedWrite.describe(error) : error;
    }
    return results[results.length - 1];
  }

  /** Runs a pipeline with the pool's prepared statements: its results, or those before its failure and the failure. */
  async #pipeline(steps: readonly PipelinedStatement[]): Promise<{ results: readonly PgResult[]; failure?: unknown; stalePlan?: boolean }> {
    try {
      return { results: await StatementPipeline.run(this.#client, steps, this.#decoders, this.#prepared) };
    } catch (err) {
      if (!(err instanceof PipelineError)) throw err;
      return { results: err.completed, failure: err.failure, stalePlan: err.stalePlan };
    }
  }

  /**
   * One write statement as a whole transaction of its own, in one round trip: the previous user's
   * deferred COMMIT, BEGIN READ WRITE, the statement and its COMMIT as one pipeline (see #begin).
   * Not `durable`: the COMMIT does not wait for the WAL to reach the disk (a crash of the server
   * may lose the last such transactions, never half of one). On failure the transaction is left
   * for the caller's `finish('ROLLBACK')`.
   */
  async writeAlone<T = Row>(s: SqlStatement, options: { readonly durable: boolean }): Promise<T[]> {
    const steps: PipelinedStatement[] = this.#commitFirst ? [{ text: 'COMMIT', values: [] }] : [];
    this.#commitFirst = false;
    const beginAt = steps.length;
    steps.push({ text: BEGIN.transaction, values: [] });
    if (!options.durable) steps.push({ text: 'SET LOCAL synchronous_commit TO OFF', values: [] });
    const statementAt = steps.length;
    steps.push({ text: s.sql, values: bindable(s.parameters) }, { text: 'COMMIT', values: [] });
    try {
      // Bound to names: a realtime message's statement and its table never change, so it is parsed
      // once per connection rather than at every send.
      return (await StatementPipeline.run(this.#client, steps, this.#decoders, this.#prepared))[statementAt].rows as T[];
    } catch (err) {
      const failure = err instanceof PipelineError ? err.failure : err;
      // Past a completed BEGIN the server skipped to the Sync and the transaction is left aborted.
      if (err instanceof PipelineError && err.completed.length > beginAt) this.#begun = true;
      if (isConnectionFailure(failure)) this.#broken = true;
      throw translatePostgresError(failure);
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
    // In autocommit the first open cursor begins a transaction and the last one ends it; a read
    // unit's cursors live in its transaction.
    const ownTransaction = this.#mode === 'statement';
    const begins = ownTransaction && this.#openCursors++ === 0;
    let failed = false;
    try {
      if (begins) await this.exec('BEGIN');
      // In a read unit that has not begun, the DECLARE begins it (#begin).
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
