import type pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import type { Row } from '../database.js';
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
  ) {
    super(failure.message);
  }
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
 * pool's RowDecoders.
 *
 * A node-postgres Submittable (`client.query(pipeline)`), so the client's queue, timeouts and
 * error handling treat it as one query.
 */
export class StatementPipeline implements pg.Submittable {
  readonly #statements: readonly PipelinedStatement[];
  readonly #decoders: RowDecoders;
  readonly #results: PgResult[] = [];
  /** The statement being answered: its decoder and rows, from its RowDescription to its CommandComplete. */
  #current: { decoder: RowDecoder; rows: Row[] } | undefined;
  /** node-postgres calls it once, with the error or the results (set by the client when a timeout applies). */
  callback: (err: Error | null, results?: PgResult[]) => void;

  private constructor(statements: readonly PipelinedStatement[], decoders: RowDecoders, callback: StatementPipeline['callback']) {
    this.#statements = statements;
    this.#decoders = decoders;
    this.callback = callback;
  }

  /** Runs `statements` on `client` as one pipeline; resolves with one result per statement. */
  static run(client: { query(s: pg.Submittable): unknown }, statements: readonly PipelinedStatement[], decoders: RowDecoders): Promise<PgResult[]> {
    return new Promise((resolve, reject) => {
      client.query(new StatementPipeline(statements, decoders, (err, results) => (err ? reject(err) : resolve(results ?? []))));
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
