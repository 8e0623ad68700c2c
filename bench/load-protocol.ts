/**
 * What the harness and the load worker (a child process, so it can sit on its own core) say to
 * each other over IPC. Everything here is plain data: functions cannot cross a process boundary.
 */

/** One kind of request of a scenario. Placeholders are filled per request by the load worker. */
export interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'PUT';
  /**
   * Path with query string. `{{name}}` is replaced by the next of `names` (shared by all
   * connections, so concurrent requests address different documents).
   */
  readonly path: string;
  /** JSON text; `{{seq}}` becomes a number unique within the run, `{{name}}` as in `path`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A load run: every connection sends `requests` in turn, over and over, for `durationSec`. */
export interface LoadRun {
  readonly origin: string;
  readonly connections: number;
  readonly durationSec: number;
  readonly requests: readonly RequestSpec[];
  readonly names: readonly string[];
  /** Seeds `{{seq}}`, so runs never repeat one another's values. */
  readonly seqStart: number;
}

/** What one run measured. */
export interface SliceResult {
  /** Responses received, whatever their status. */
  readonly responses: number;
  readonly elapsedSec: number;
  /** Latency of every 2xx response, in milliseconds, in arrival order. */
  readonly latenciesMs: number[];
  /** Socket errors and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  readonly statusCodes: Record<string, number>;
  /** The last `{{seq}}` used, so the next run can continue after it. */
  readonly seqEnd: number;
}

/** Harness -> worker. */
export type ToLoadWorker = { readonly type: 'run'; readonly id: number; readonly run: LoadRun } | { readonly type: 'exit' };

/** Worker -> harness. */
export type FromLoadWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly id: number; readonly result: SliceResult }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };
