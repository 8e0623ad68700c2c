import type { ScenarioId } from './scenarios.js';
import type { Spread } from './stats.js';

/** What one server did in one scenario, over all its measured slices. */
export interface SideResult {
  /** Requests per second of each slice, in order, and their spread. */
  readonly reqPerSecSlices: number[];
  readonly reqPerSec: Spread;
  /** Over every 2xx response of every measured slice. */
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  readonly responses: number;
  /** Socket errors, timeouts and non-2xx responses, warm-up included; must be 0. */
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
  /** Peak resident memory during the scenario (MB), when /proc tells. */
  readonly peakRssMB: number | undefined;
  /** A failing response seen by a check request, to say what went wrong. */
  readonly sampleError?: string;
}

/** One scenario at one size: both servers and fw's throughput as a share of the baseline's. */
export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly title: string;
  readonly skipped?: string;
  readonly fw?: SideResult;
  readonly baseline?: SideResult;
  /** fw req/s / baseline req/s for each interleaved pair, and their spread. */
  readonly ratio?: Spread;
}

/** The unlimited list over every row, a few times in a row, one request at a time. */
export interface StreamResult {
  readonly rows: number;
  readonly bytes: number;
  readonly fw: { readonly ms: Spread; readonly peakRssMB: number | undefined; readonly errors: number };
  readonly baseline: { readonly ms: Spread; readonly peakRssMB: number | undefined; readonly errors: number };
}

/** Everything measured at one table size. */
export interface SizeResult {
  readonly size: number;
  /** Rows in tabToDo when the read scenarios ran. */
  readonly rows: number;
  readonly seed: { readonly added: number; readonly seconds: number; readonly via: string };
  /** Rows of scenario (b)'s page on each server (20 when the seed reached the filtered rows). */
  readonly listRows: { readonly fw: number; readonly baseline: number };
  readonly scenarios: ScenarioResult[];
  readonly stream?: StreamResult;
  /** fw's peak RSS over the scenarios at this size (MB). */
  readonly fwPeakRssMB: number | undefined;
}

/** One configuration: an engine, a number of fw worker processes and of concurrent connections. */
export interface RunResult {
  readonly dialect: 'sqlite' | 'postgres';
  readonly workers: number;
  /** How fw was started when `--start` asked for more than the default (bench/fw-process.ts). */
  readonly start?: string;
  readonly connections: number;
  readonly baseline: string;
  readonly skipped?: string;
  readonly sizes: SizeResult[];
}

/** One target of the issue, checked against the figures (reported, never asserted). */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

/** The JSON file the harness writes. */
export interface BenchReport {
  readonly command: string;
  readonly date: string;
  readonly machine: {
    readonly cores: number;
    readonly cpu: string;
    readonly memoryGB: number;
    readonly node: string;
    readonly platform: string;
    readonly loadAverage: number[];
  };
  readonly settings: {
    readonly quick: boolean;
    readonly connections: number[];
    readonly sliceSeconds: number;
    readonly warmupSeconds: number;
    readonly pairs: number;
    readonly fwLogLevel: string;
  };
  readonly notes: string[];
  readonly runs: RunResult[];
  readonly targets: TargetCheck[];
  readonly errors: number;
}
