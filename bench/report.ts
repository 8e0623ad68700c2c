import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CURVE_COLUMNS, SCENARIO_COLUMNS, curveRows, num, scenarioRows, sizeHeading, streamLine } from './report-format.js';
import type { BenchReport, RunResult, SizeResult } from './report-types.js';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Prints the figures of one size as soon as they are measured. */
export function printSize(run: RunResult, size: SizeResult, log: (line: string) => void): void {
  log('');
  log(`${sizeHeading(run, size)} (seeded ${num(size.seed.added)} in ${num(size.seed.seconds, 1)} s via ${size.seed.via})`);
  log(table(SCENARIO_COLUMNS, scenarioRows(size)));
  const stream = streamLine(size);
  if (stream) log(stream);
}

/** Prints the summary: the latency curve of each run, the targets and the notes. */
export function printSummary(report: BenchReport, log: (line: string) => void): void {
  for (const run of report.runs) {
    if (run.skipped) {
      log(`\n${run.dialect}, workers ${run.workers}, ${run.connections} connections: skipped (${run.skipped})`);
      continue;
    }
    if (run.sizes.length > 1) {
      log(`\nindexed-filter list latency, ${run.dialect}, workers ${run.workers}, ${run.connections} connections:`);
      log(table(CURVE_COLUMNS, curveRows(run)));
    }
  }
  log('\ntargets (one worker; reported, not asserted):');
  log(
    table(
      ['target', 'measured', 'met'],
      report.targets.map((t) => [t.target, t.measured, t.met === undefined ? '–' : t.met ? 'yes' : 'NO']),
    ),
  );
  if (report.notes.length) log(`\nnotes:\n${report.notes.map((n) => `- ${n}`).join('\n')}`);
}

/** Writes the report as JSON, creating the folder. */
export async function writeJsonReport(file: string, report: BenchReport): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
}
