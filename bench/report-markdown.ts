import { readFile, writeFile } from 'node:fs/promises';
import { CURVE_COLUMNS, SCENARIO_COLUMNS, curveRows, machineLine, num, runText, scenarioRows, sizeHeading, streamLine } from './report-format.js';
import type { BenchReport } from './report-types.js';

/** The markers that enclose the generated part of docs/benchmarks.md. */
export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';

function mdTable(header: string[], rows: string[][]): string[] {
  const escapeCell = (c: string) => c.replaceAll('|', '\\|');
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(escapeCell).join(' | ')} |`)];
}

/** The generated section: command, date, machine, targets, then every run's figures. */
export function renderMarkdown(report: BenchReport): string {
  const s = report.settings;
  const out: string[] = [
    `Produced by \`${report.command}\` on ${report.date}.`,
    '',
    `- Machine: ${machineLine(report)}.`,
    `- Load: ${s.connections.join(' and ')} connections (a run each); per scenario a ${num(s.warmupSeconds, 1)} s warm-up per server, then ${s.pairs} pairs of ${num(s.sliceSeconds, 1)} s slices alternating fw and baseline. Figures are median (min..max) over the slices; the ratio is taken per pair.`,
    `- fw log level: ${s.fwLogLevel}.${s.quick ? ' **Quick mode: the figures only show that the harness runs.**' : ''}`,
    ...report.notes.map((n) => `- ${n}`),
    '',
    '### Targets (one worker; docs/benchmarks.md "Targets")',
    '',
    ...mdTable(
      ['target', 'measured', 'met'],
      report.targets.map((t) => [t.target, t.measured, t.met === undefined ? '–' : t.met ? 'yes' : '**no**']),
    ),
  ];
  for (const run of report.runs) {
    out.push('', `### ${run.dialect}, ${runText(run)}`, '');
    if (run.skipped) {
      out.push(`Skipped: ${run.skipped}.`);
      continue;
    }
    out.push(`Baseline: ${run.baseline}.`);
    for (const size of run.sizes) {
      out.push('', `#### ${sizeHeading(run, size)}`, '');
      out.push(`Seeded ${num(size.seed.added)} documents in ${num(size.seed.seconds, 1)} s via ${size.seed.via}.`, '');
      out.push(...mdTable(SCENARIO_COLUMNS, scenarioRows(size)));
      const stream = streamLine(size);
      if (stream) out.push('', `Unlimited list: ${stream}.`);
    }
    if (run.sizes.length > 1) {
      out.push('', `Indexed-filter list (scenario b) by table size, ${run.dialect}, ${runText(run)}:`, '');
      out.push(...mdTable(CURVE_COLUMNS, curveRows(run)));
    }
  }
  return out.join('\n');
}

/**
 * Replaces the text between the markers of the document with `generated`; appends the markers
 * (under a heading) when the document has none, and creates the document when it is missing.
 */
export async function updateBenchmarksDoc(path: string, generated: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  const block = `${START_MARKER}\n${generated}\n${END_MARKER}`;
  const start = text.indexOf(START_MARKER);
  const end = text.indexOf(END_MARKER);
  const next =
    start >= 0 && end > start ? text.slice(0, start) + block + text.slice(end + END_MARKER.length) : `${text.trimEnd()}\n\n## Latest figures\n\n${block}\n`;
  await writeFile(path, next);
}
