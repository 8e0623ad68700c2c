import type { RunResult, ScenarioResult, SizeResult, TargetCheck } from './report-types.js';
import type { ScenarioId } from './scenarios.js';

const fmt = (n: number, digits = 0) => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The request rate each scenario must reach, as a share of the baseline's in the same run (docs/benchmarks.md "Targets"). */
const SHARES: Readonly<Record<RunResult['dialect'], ReadonlyArray<readonly [ScenarioId, number, string]>>> = {
  sqlite: [
    ['get-one', 0.75, 'GET one'],
    ['list', 0.65, 'list'],
    ['insert', 0.6, 'insert'],
    ['insert-many', 0.5, 'insert_many'],
  ],
  postgres: [
    ['get-one', 0.65, 'GET one'],
    ['list', 0.6, 'list'],
    ['insert', 0.6, 'insert'],
  ],
};
/** fw's p99 latency at most this many times the baseline's, for every scenario with a rate target. */
const P99_FACTOR = 1.3;
/** fw's peak RSS in every scenario of a 50-connection run, however it was started. */
const PEAK_RSS_MB = 150;

function scenario(size: SizeResult | undefined, id: ScenarioId): ScenarioResult | undefined {
  return size?.scenarios.find((s) => s.id === id && !s.skipped);
}

/** `sqlite, 10 connections, started by npm` */
function runLabel(run: RunResult): string {
  return `${run.dialect}, ${run.connections} connections${run.start ? `, started by ${run.start}` : ''}`;
}

/** The rate, p99 and memory targets of one run at its largest size. */
function runChecks(run: RunResult): TargetCheck[] {
  const size = run.sizes[run.sizes.length - 1];
  const label = runLabel(run);
  const checks: TargetCheck[] = [];
  for (const [id, share, name] of SHARES[run.dialect]) {
    const s = scenario(size, id);
    checks.push({
      target: `${name} ≥ ${share} of the baseline's req/s (${label})`,
      measured: s?.ratio ? `${fmt(s.ratio.median, 2)} (${fmt(s.ratio.min, 2)}..${fmt(s.ratio.max, 2)})` : 'not measured',
      met: s?.ratio ? s.ratio.median >= share : undefined,
    });
    const fw = s?.fw?.latencyMs.p99;
    const base = s?.baseline?.latencyMs.p99;
    checks.push({
      target: `${name} p99 ≤ ${P99_FACTOR}× the baseline's (${label})`,
      measured: fw === undefined || base === undefined ? 'not measured' : `${fmt(fw, 1)} / ${fmt(base, 1)} ms = ${fmt(fw / base, 2)}×`,
      met: fw === undefined || base === undefined ? undefined : fw <= base * P99_FACTOR,
    });
  }
  if (run.connections === 50) {
    const peaks = size.scenarios.map((s) => s.fw?.peakRssMB).filter((p): p is number => p !== undefined);
    const peak = peaks.length ? Math.max(...peaks) : undefined;
    checks.push({
      target: `fw peak RSS ≤ ${PEAK_RSS_MB} MB in every scenario (${label})`,
      measured: peak === undefined ? 'not measured' : `${fmt(peak)} MB (the highest scenario)`,
      met: peak === undefined ? undefined : peak <= PEAK_RSS_MB,
    });
  }
  return checks;
}

/**
 * The targets (docs/benchmarks.md "Targets"), checked against every run with one worker at its
 * largest size; the table-size targets against the SQLite run with 10 connections. Reported beside
 * the figures; the harness never fails on them.
 */
export function checkTargets(runs: readonly RunResult[]): TargetCheck[] {
  const measured = runs.filter((r) => r.workers === 1 && !r.skipped && r.sizes.length);
  if (measured.length === 0) return [{ target: 'targets are checked on runs with one worker', measured: 'not measured in this run', met: undefined }];
  const checks = measured.flatMap(runChecks);
  const sqlite = measured.find((r) => r.dialect === 'sqlite' && r.connections === 10 && !r.start) ?? measured.find((r) => r.dialect === 'sqlite');
  const at = (n: number) => sqlite?.sizes.find((s) => s.size === n);
  const hundred = at(100_000);
  const stream = hundred?.stream?.fw.peakRssMB;
  checks.push({
    target: 'limit_page_length=0 over 100,000 documents: RSS < 250 MB (sqlite)',
    measured: stream === undefined ? 'not measured at 100,000' : `${fmt(stream)} MB peak`,
    met: stream === undefined ? undefined : stream < 250,
  });
  const p10 = scenario(at(10_000), 'list')?.fw?.latencyMs.p50;
  const p100 = scenario(hundred, 'list')?.fw?.latencyMs.p50;
  checks.push({
    target: 'indexed-filter list latency grows < 2× from 10,000 to 100,000 (sqlite)',
    measured: p10 && p100 ? `p50 ${fmt(p10, 2)} -> ${fmt(p100, 2)} ms (${fmt(p100 / p10, 2)}×)` : 'needs sizes 10,000 and 100,000',
    met: p10 && p100 ? p100 / p10 < 2 : undefined,
  });
  return checks;
}
