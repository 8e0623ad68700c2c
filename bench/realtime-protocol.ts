// Messages between the realtime bench (bench/realtime-bench.ts) and its client processes
// (bench/realtime-client-main.ts), over the IPC channel with `serialization: 'advanced'`, so the
// receipts travel as typed arrays rather than JSON.

/**
 * Milliseconds on CLOCK_MONOTONIC, which every process of the machine reads alike (libuv's
 * hrtime on Linux), so a client's receipt and the bench's send time can be subtracted.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Which client the bench's sockets are (docs/benchmarks.md, "Realtime"). */
export type RealtimeClientKind = 'lean' | 'socketio';

/** What the bench asks of a client process. */
export type ToRealtimeClient =
  /** Connect `sockets` Socket.IO clients to `url` and subscribe each to `doctype`. */
  | {
      readonly type: 'connect';
      readonly url: string;
      readonly auth: string;
      readonly sockets: number;
      /** `lean`: the bench's own light client (realtime-lean-socket.ts); `socketio`: socket.io-client. */
      readonly client: RealtimeClientKind;
      readonly doctype: string;
      /** The documents' names: a receipt is reported by its index here. */
      readonly names: readonly string[];
    }
  /** Subscribe every socket to the DocType given at connect. */
  | { readonly type: 'subscribe' }
  /** Report this process's monotonic clock minus `sentAt` (a check that the clocks agree). */
  | { readonly type: 'clock'; readonly sentAt: number }
  /**
   * Hand over the receipts since the last collect once `expected` of them arrived, or when
   * `timeoutMs` has passed without a new one.
   */
  | { readonly type: 'collect'; readonly expected: number; readonly timeoutMs: number }
  | { readonly type: 'exit' };

/**
 * Receipts of `list_update`: the i-th arrived at `at[i]` (monotonic ms) for document `doc[i]`,
 * and was the `ordinal[i]`-th event of that document on its socket (0-based), which names the
 * update it reports, since a socket receives one document's events in order.
 */
export interface Receipts {
  readonly count: number;
  readonly doc: Uint32Array;
  readonly ordinal: Uint32Array;
  readonly at: Float64Array;
}

/** What a client process tells the bench. */
export type FromRealtimeClient =
  | { readonly type: 'ready' }
  | { readonly type: 'connected'; readonly sockets: number }
  | { readonly type: 'subscribed'; readonly sockets: number }
  | { readonly type: 'clock'; readonly skewMs: number }
  | { readonly type: 'receipts'; readonly receipts: Receipts; readonly unknown: number }
  | { readonly type: 'error'; readonly message: string };
