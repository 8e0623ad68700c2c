import type { RunResult, SizeResult, TargetCheck } from './report-types.js';
import type { ScenarioId } from './scenarios.js';

const fmt = (n: number, digits = 0) => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function scenario(size: SizeResult | undefined, id: ScenarioId) {
  return size?.scenarios.find((s) => s.id === id && !s.skipped);
}

/**
 * The issue's targets, checked against the SQLite run with one worker (10 connections where
 * measured) at its largest size (and at 10k/100k where a target names them); the throughput shares
 * also against the 50-connection run. Reported beside the figures; the harness never fails on them.
 */
export function checkTargets(runs: readonly RunResult[]): TargetCheck[] {
  const measured = runs.filter((r) => r.dialect === 'sqlite' && r.workers === 1 && !r.skipped && r.sizes.length);
  const run = measured.find((r) => r.connections === 10) ?? measured[0];
  if (!run) return [{ target: 'targets are checked on SQLite with one worker', measured: 'not measured in this run', met: undefined }];
  const { connections } = run;
  const largest = run.sizes[run.sizes.length - 1];
  const at = (n: number) => run.sizes.find((s) => s.size === n);
  const where = `at ${fmt(largest.size)} rows`;
  const checks: TargetCheck[] = [];

  for (const [id, share, label] of [
    ['get-one', 0.6, 'GET one'],
    ['list', 0.5, 'list'],
    ['insert', 0.5, 'insert'],
  ] as const) {
    const s = scenario(largest, id);
    checks.push({
      target: `${label} ≥ ${share * 100}% of the baseline's req/s`,
      measured: s?.ratio ? `${fmt(s.ratio.median * 100)}% (${fmt(s.ratio.min * 100)}..${fmt(s.ratio.max * 100)}%) ${where}` : 'not measured',
      met: s?.ratio ? s.ratio.median >= share : undefined,
    });
  }
  for (const [id, label] of [
    ['get-one', 'GET'],
    ['list', 'list'],
  ] as const) {
    const s = scenario(largest, id);
    const p99 = s?.fw?.latencyMs.p99;
    checks.push({
      target: `${label} p99 < 10 ms at 10 connections`,
      measured: p99 === undefined ? 'not measured' : `${fmt(p99, 1)} ms ${where}${connections === 10 ? '' : ` with ${connections} connections`}`,
      met: p99 === undefined || connections !== 10 ? undefined : p99 < 10,
    });
  }
  const fifty = measured.find((r) => r.connections === 50);
  const fiftyLargest = fifty?.sizes[fifty.sizes.length - 1];
  for (const [id, share, label] of [
    ['get-one', 0.6, 'GET one'],
    ['list', 0.5, 'list'],
    ['insert', 0.5, 'insert'],
  ] as const) {
    if (!fiftyLargest) break;
    const s = scenario(fiftyLargest, id);
    checks.push({
      target: `${label} ≥ ${share * 100}% of the baseline's req/s with 50 connections`,
      measured: s?.ratio
        ? `${fmt(s.ratio.median * 100)}% (${fmt(s.ratio.min * 100)}..${fmt(s.ratio.max * 100)}%) at ${fmt(fiftyLargest.size)} rows`
        : 'not measured',
      met: s?.ratio ? s.ratio.median >= share : undefined,
    });
  }
  const hundred = at(100_000);
  checks.push({
    target: 'fw RSS ≤ 150 MB with 100,000 documents',
    measured: hundred?.fwPeakRssMB === undefined ? 'not measured at 100,000' : `${fmt(hundred.fwPeakRssMB)} MB peak`,
    met: hundred?.fwPeakRssMB === undefined ? undefined : hundred.fwPeakRssMB <= 150,
  });
  const stream = hundred?.stream?.fw.peakRssMB;
  checks.push({
    target: 'limit_page_length=0 over 100,000 documents: RSS < 250 MB',
    measured: stream === undefined ? 'not measured at 100,000' : `${fmt(stream)} MB peak`,
    met: stream === undefined ? undefined : stream < 250,
  });
  const p10 = scenario(at(10_000), 'list')?.fw?.latencyMs.p50;
  const p100 = scenario(hundred, 'list')?.fw?.latencyMs.p50;
  checks.push({
    target: 'indexed-filter list latency grows < 2× from 10,000 to 100,000',
    measured: p10 && p100 ? `p50 ${fmt(p10, 2)} -> ${fmt(p100, 2)} ms (${fmt(p100 / p10, 2)}×)` : 'needs sizes 10,000 and 100,000',
    met: p10 && p100 ? p100 / p10 < 2 : undefined,
  });
  return checks;
}
