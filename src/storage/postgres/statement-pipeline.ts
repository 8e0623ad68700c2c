import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import type { PgResult } from './postgres-connection.js';

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
  ) {
    super(failure.message);
  }
}

/** What a pipeline needs of node-postgres's result, beyond its public type. */
interface RowParser {
  rows: unknown[];
  rowCount: number | null;
  addFields(fields: unknown[]): void;
  parseRow(values: unknown[]): unknown;
  addRow(row: unknown): void;
  addCommandComplete(msg: unknown): void;
}

/** The type parsers of the pool the pipeline's client belongs to. */
export type TypeParsers = pg.CustomTypesConfig;

/**
 * Several statements sent in one write and answered in one read: each as Parse, Bind, Describe
 * and Execute of the extended protocol, and one Sync after the last (docs/architecture.md "The
 * first message"). node-postgres otherwise waits for each query's answer before it sends the
 * next, so `BEGIN`, the metadata check and a read with values would cost three round trips. The server
 * runs the statements in order and, after an error, skips to the Sync: the statements that
 * completed are reported with the error, and none after it ran.
 *
 * A node-postgres Submittable (`client.query(pipeline)`), so the client's queue, timeouts and
 * error handling treat it as one query.
 */
export class StatementPipeline implements pg.Submittable {
  readonly #statements: readonly PipelinedStatement[];
  readonly #types: TypeParsers;
  readonly #results: PgResult[] = [];
  #current: RowParser | undefined;
  /** node-postgres calls it once, with the error or the results (set by the client when a timeout applies). */
  callback: (err: Error | null, results?: PgResult[]) => void;

  private constructor(statements: readonly PipelinedStatement[], types: TypeParsers, callback: StatementPipeline['callback']) {
    this.#statements = statements;
    this.#types = types;
    this.callback = callback;
  }

  /** Runs `statements` on `client` as one pipeline; resolves with one result per statement. */
  static run(client: { query(s: pg.Submittable): unknown }, statements: readonly PipelinedStatement[], types: TypeParsers): Promise<PgResult[]> {
    return new Promise((resolve, reject) => {
      client.query(new StatementPipeline(statements, types, (err, results) => (err ? reject(err) : resolve(results ?? []))));
    });
  }

  submit(connection: pg.Connection): void {
    const stream = connection.stream as { cork?(): void; uncork?(): void };
    stream.cork?.();
    try {
      for (const { text, values } of this.#statements) {
        connection.parse({ name: '', text, types: [] }, true);
        connection.bind({ portal: '', statement: '', values: values as string[], valueMapper: pgUtils.prepareValue }, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({ portal: '' }, true);
      }
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  #newResult(): RowParser {
    return new pg.Result('', this.#types as ConstructorParameters<typeof pg.Result>[1]) as unknown as RowParser;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.#current = this.#newResult();
    this.#current.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const current = this.#current;
    if (current) current.addRow(current.parseRow(msg.fields));
  }

  handleCommandComplete(msg: unknown): void {
    const current = this.#current ?? (this.#newResult());
    current.addCommandComplete(msg);
    this.#results.push({ rows: current.rows as PgResult['rows'], rowCount: current.rowCount });
    this.#current = undefined;
  }

  handleEmptyQuery(): void {
    this.#results.push({ rows: [], rowCount: null });
  }

  handleError(err: Error): void {
    this.callback(new PipelineError(err, this.#results));
  }

  handleReadyForQuery(): void {
    this.callback(null, this.#results);
  }

  // Never asked of a pipeline (no row limits, no COPY); present because the client calls them blindly.
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}
