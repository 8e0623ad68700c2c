import type pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import type { Row } from '../database.js';
import type { ConnectionStatements, PreparedStatements, StatementName } from './prepared-statements.js';
import type { FieldDescription, RowDecoder, RowDecoders } from './row-decoders.js';

/** The part of a node-postgres result we read (a pipeline's results have the same shape). */
export interface PgResult {
  rows: Row[];
  rowCount: number | null;
}

/** One statement of a pipeline; `values` bind to `$1`, `$2`, ... as in any extended-protocol query. */
export interface PipelinedStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** The first statement of a pipeline that failed, and how many before it ran to completion. */
export class PipelineError extends Error {
  constructor(
    /** The server's error (or the client's, for a lost connection or a timeout). */
    readonly failure: Error,
    /** The results of the statements that completed before the failing one, in order. */
    readonly completed: readonly PgResult[],
    /**
     * The failing statement was bound to a name parsed earlier, and failed as a statement parsed
     * before a schema change does (its result columns changed, a column or table it names is gone,
     * the name is unknown): every name of the connection is dropped, so the same statements sent
     * again are parsed afresh (PostgresConnection sends a unit's first message again once).
     */
    readonly stalePlan = false,
  ) {
    super(failure.message);
  }
}

/**
 * Errors of a statement bound to a name parsed before a schema change: `cached plan must not change
 * result type` (0A000), a name the server no longer knows (26000), an undefined column, table or
 * operator and the like (class 42, which a fresh Parse of the same text would have raised there).
 */
function isStalePlan(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code === '0A000' || code === '26000' || code.startsWith('42'));
}

/** The row count of a command tag (`INSERT 0 3`, `UPDATE 2`, `SELECT 5`), read as node-postgres reads it; null for `BEGIN`. */
function commandRowCount(tag: string): number | null {
  const match = /^[A-Za-z]+(?: (\d+))?(?: (\d+))?/.exec(tag);
  const count = match?.[2] ?? match?.[1];
  return count === undefined ? null : Number(count);
}

/**
 * Several statements sent in one write and answered in one read: each as Parse, Bind, Describe
 * and Execute of the extended protocol, and one Sync after the last (docs/architecture.md "The
 * first message"). node-postgres otherwise waits for each query's answer before it sends the
 * next, so `BEGIN`, the metadata check and a read with values would cost three round trips. The
 * server runs the statements in order and, after an error, skips to the Sync: the statements
 * that completed are reported with the error, and none after it ran. Rows are decoded by the
 * pool's RowDecoders. With the pool's PreparedStatements a statement parsed before on the same
 * connection is sent as Bind, Describe and Execute of its name alone.
 *
 * A node-postgres Submittable (`client.query(pipeline)`), so the client's queue, timeouts and
 * error handling treat it as one query.
 */
export class StatementPipeline implements pg.Submittable {
  readonly #statements: readonly PipelinedStatement[];
  readonly #decoders: RowDecoders;
  readonly #prepared: PreparedStatements | undefined;
  /** The connection's named statements and each statement's name, once submitted with `prepared`. */
  #named: { readonly statements: ConnectionStatements; readonly names: readonly StatementName[] } | undefined;
  readonly #results: PgResult[] = [];
  /** The statement being answered: its decoder and rows, from its RowDescription to its CommandComplete. */
  #current: { decoder: RowDecoder; rows: Row[] } | undefined;
  /** node-postgres calls it once, with the error or the results (set by the client when a timeout applies). */
  callback: (err: Error | null, results?: PgResult[]) => void;

  private constructor(
    statements: readonly PipelinedStatement[],
    decoders: RowDecoders,
    prepared: PreparedStatements | undefined,
    callback: StatementPipeline['callback'],
  ) {
    this.#statements = statements;
    this.#decoders = decoders;
    this.#prepared = prepared;
    this.callback = callback;
  }

  /**
   * Runs `statements` on `client` as one pipeline; resolves with one result per statement. With
   * `prepared`, each statement is bound to a name kept for its text on this connection (parsed
   * the first time), instead of being parsed again as the unnamed statement.
   */
  static run(
    client: { query(s: pg.Submittable): unknown },
    statements: readonly PipelinedStatement[],
    decoders: RowDecoders,
    prepared?: PreparedStatements,
  ): Promise<PgResult[]> {
    return new Promise((resolve, reject) => {
      client.query(new StatementPipeline(statements, decoders, prepared, (err, results) => (err ? reject(err) : resolve(results ?? []))));
    });
  }

  submit(connection: pg.Connection): void {
    const stream = connection.stream as { cork?(): void; uncork?(): void };
    const statements = this.#prepared?.of(connection);
    const names = statements ? this.#statements.map(({ text }) => statements.name(text)) : undefined;
    if (statements && names) this.#named = { statements, names };
    stream.cork?.();
    try {
      // Closing a name the server does not hold is no error; closes run even when a statement fails.
      for (const name of statements?.takeCloses() ?? []) connection.close({ type: 'S', name }, true);
      for (let i = 0; i < this.#statements.length; i++) {
        const { text, values } = this.#statements[i];
        const name = names?.[i].name ?? '';
        if (names === undefined || names[i].parse) connection.parse({ name, text, types: [] }, true);
        connection.bind({ portal: '', statement: name, values: values as string[], valueMapper: pgUtils.prepareValue }, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({ portal: '' }, true);
      }
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  handleRowDescription(msg: { fields: FieldDescription[] }): void {
    const text = this.#statements[this.#results.length]?.text ?? '';
    this.#current = { decoder: this.#decoders.for(text, msg.fields), rows: [] };
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    this.#current?.rows.push(this.#current.decoder.decode(msg.fields));
  }

  handleCommandComplete(msg: { text: string }): void {
    const rows = this.#current?.rows ?? [];
    this.#results.push({ rows, rowCount: commandRowCount(msg.text) });
    this.#current = undefined;
  }

  handleEmptyQuery(): void {
    this.#results.push({ rows: [], rowCount: null });
  }

  handleError(err: Error): void {
    this.callback(new PipelineError(err, this.#results, this.#forgetFailed(err)));
  }

  /**
   * After a failure the server skipped every message up to the Sync: the Parses sent from the
   * failing statement on may or may not have run, so their names are closed and parsed again when
   * next used. True when the failing statement's name was parsed earlier and the error says its
   * plan is stale (isStalePlan): then every name of the connection goes.
   */
  #forgetFailed(err: Error): boolean {
    const named = this.#named;
    if (!named) return false;
    const failing = this.#results.length;
    if (failing < named.names.length && !named.names[failing].parse && isStalePlan(err)) {
      named.statements.forgetAll();
      return true;
    }
    for (let i = failing; i < named.names.length; i++) {
      if (named.names[i].parse) named.statements.forget(this.#statements[i].text, named.names[i].name);
    }
    return false;
  }

  handleReadyForQuery(): void {
    this.callback(null, this.#results);
  }

  // Never asked of a pipeline (no row limits, no COPY); present because the client calls them blindly.
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}
