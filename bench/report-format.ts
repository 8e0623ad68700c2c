import type { BenchReport, RunResult, SizeResult } from './report-types.js';
import type { Spread } from './stats.js';

/** A number with thousands separators and a fixed number of decimals; `–` for none. */
export function num(n: number | undefined, digits = 0): string {
  if (n === undefined || Number.isNaN(n)) return '–';
  return n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** `median (min..max)`. */
export function spreadText(s: Spread | undefined, digits = 0): string {
  return s ? `${num(s.median, digits)} (${num(s.min, digits)}..${num(s.max, digits)})` : '–';
}

/** `1 worker` / `2 workers`. */
export function workersText(n: number): string {
  return n === 1 ? '1 worker' : `${n} workers`;
}

/** `1 worker, 10 connections`. */
export function runText(run: RunResult): string {
  return `${workersText(run.workers)}${run.start ? `, started by ${run.start}` : ''}, ${run.connections} connections`;
}

/** Heading of one run at one size. */
export function sizeHeading(run: RunResult, size: SizeResult): string {
  return `${run.dialect}, ${runText(run)}, ${num(size.rows)} rows`;
}

/** Column titles of the scenario table. */
export const SCENARIO_COLUMNS = [
  'scenario',
  'fw req/s',
  'baseline req/s',
  'fw / baseline',
  'fw p50 / p99 ms',
  'baseline p50 / p99 ms',
  'errors fw / base',
  'peak RSS MB fw / base',
];

/** One row per scenario: figures as median (min..max) over the slices. */
export function scenarioRows(size: SizeResult): string[][] {
  return size.scenarios.map((s) => {
    if (s.skipped || !s.fw || !s.baseline) return [s.title, `skipped: ${s.skipped ?? 'no result'}`, '', '', '', '', '', ''];
    return [
      s.title,
      spreadText(s.fw.reqPerSec),
      spreadText(s.baseline.reqPerSec),
      spreadText(s.ratio, 2),
      `${num(s.fw.latencyMs.p50, 1)} / ${num(s.fw.latencyMs.p99, 1)}`,
      `${num(s.baseline.latencyMs.p50, 1)} / ${num(s.baseline.latencyMs.p99, 1)}`,
      `${s.fw.errors} / ${s.baseline.errors}`,
      `${num(s.fw.peakRssMB)} / ${num(s.baseline.peakRssMB)}`,
    ];
  });
}

/** The unlimited-list row of a size, or undefined when it did not run. */
export function streamLine(size: SizeResult): string | undefined {
  const s = size.stream;
  if (!s) return undefined;
  return (
    `limit_page_length=0, 2 fields, ${num(s.rows)} rows, ${num(s.bytes / 1024 / 1024, 1)} MB of JSON: ` +
    `fw ${spreadText(s.fw.ms)} ms, peak RSS ${num(s.fw.peakRssMB)} MB; ` +
    `baseline ${spreadText(s.baseline.ms)} ms, peak RSS ${num(s.baseline.peakRssMB)} MB` +
    (s.fw.errors + s.baseline.errors ? `; errors fw ${s.fw.errors}, baseline ${s.baseline.errors}` : '')
  );
}

/** The latency curve of the indexed-filter list over the sizes of a run: one row per size. */
export function curveRows(run: RunResult): string[][] {
  return run.sizes.map((size) => {
    const list = size.scenarios.find((s) => s.id === 'list');
    return [
      num(size.rows),
      list?.fw ? `${num(list.fw.latencyMs.p50, 2)} / ${num(list.fw.latencyMs.p99, 2)}` : '–',
      list?.baseline ? `${num(list.baseline.latencyMs.p50, 2)} / ${num(list.baseline.latencyMs.p99, 2)}` : '–',
      list?.fw ? num(list.fw.reqPerSec.median) : '–',
    ];
  });
}

/** Column titles of the curve table. */
export const CURVE_COLUMNS = ['rows', 'fw p50 / p99 ms', 'baseline p50 / p99 ms', 'fw req/s'];

/** The machine line of a report. */
export function machineLine(report: BenchReport): string {
  const m = report.machine;
  return `${m.cores} cores (${m.cpu}), ${num(m.memoryGB)} GB, Node ${m.node}, ${m.platform}; load average at start ${m.loadAverage.map((l) => num(l, 2)).join(' ')}`;
}
