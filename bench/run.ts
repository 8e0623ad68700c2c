// `npm run bench`: fw against a bare Fastify baseline on the same data, in interleaved slices.
// See docs/benchmarks.md for what is measured and how to read it.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBaseline } from './baseline-build.js';
import { resolveFwEntry } from './fw-entry.js';
import { LoadGenerator } from './load-generator.js';
import { parseBenchOptions, USAGE, type BenchOptions } from './options.js';
import { planPinning } from './pinning.js';
import { runRealtimeBench } from './realtime-bench.js';
import { printSize, printSummary, writeJsonReport } from './report.js';
import { renderMarkdown, updateBenchmarksDoc } from './report-markdown.js';
import type { BenchReport, RunResult } from './report-types.js';
import { benchDialect, type BenchContext } from './run-dialect.js';
import { checkTargets } from './targets.js';
import { runJobsBench } from './jobs-bench.js';
import { runImportBench } from './import-bench.js';
import { runDataBench } from './data-bench.js';
import { runMailBench } from './mail-bench.js';
import { runUiBench } from './ui-bench.js';
import { runFilesBench } from './files-bench.js';
import { runSubsystemsBench } from './subsystems-bench.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => console.log(line);
const since = performance.now();
/** Progress lines carry the time since start, so slow steps show. */
const progress = (line: string) => {
  const s = Math.round((performance.now() - since) / 1000);
  const stamp = `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`;
  console.log(line.startsWith('\n') ? `\n${stamp} ${line.slice(1)}` : `${stamp} ${line}`);
};

/** Clean-up steps, run last-registered first, exactly once, on success, failure or Ctrl-C. */
function cleanupStack() {
  const steps: (() => Promise<void>)[] = [];
  let ran: Promise<void> | undefined;
  return {
    add: (fn: () => Promise<void>) => void steps.push(fn),
    run: () =>
      (ran ??= (async () => {
        for (const step of steps.reverse()) {
          try {
            await step();
          } catch (err) {
            console.error(`clean-up: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      })()),
  };
}

function countErrors(runs: readonly RunResult[]): number {
  let n = 0;
  for (const size of runs.flatMap((r) => r.sizes)) {
    for (const s of size.scenarios) n += (s.fw?.errors ?? 0) + (s.baseline?.errors ?? 0);
    n += (size.stream?.fw.errors ?? 0) + (size.stream?.baseline.errors ?? 0);
  }
  return n;
}

function standingNotes(options: BenchOptions): string[] {
  return [
    'Throughput and latency come from autocannon (one process, pinned apart from the servers when taskset exists); latency percentiles are over every 2xx response of the measured slices.',
    "fw runs as a user with the role All only, by API token: role permissions are checked (the Administrator would skip them), and ToDo's rule limits that user to ToDos allocated to them, which adds `allocated_to = user or assigned_by = user` to every list and count. Every seeded ToDo is allocated to that user, so both servers return the same rows. The baseline has no authentication, metadata or permissions.",
    'Peak RSS is VmHWM of the server process, reset before each scenario; with --workers it is the sum over the primary and its workers (an upper bound).',
    'The list filter is assignment_rule = "rule-1": an indexed column, matching the same 100 seeded rows at every size. (c) counts both its requests. Write scenarios run after the reads at each size, and their rows are deleted with direct SQL before the unlimited list, which runs last.',
    ...(options.workers.some((w) => w > 1) ? ['With --workers, all fw workers share the server cores named above.'] : []),
  ];
}

async function main(argv: string[]): Promise<number> {
  // The realtime scenario is its own run: one fw server, many Socket.IO clients (docs/benchmarks.md).
  if (argv.includes('--realtime')) return runRealtimeBench(argv);
  // Data Import throughput is its own run too (bench/import-bench.ts).
  if (argv.includes('--import')) return runImportBench(argv);
  // File throughput per storage backend, local and s3rver (bench/files-bench.ts).
  if (argv.includes('--files')) return runFilesBench(argv);
  let options: BenchOptions;
  try {
    const parsed = parseBenchOptions(argv);
    if (parsed === 'help') {
      log(USAGE);
      return 0;
    }
    options = parsed;
  } catch (err) {
    console.error(`bench: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  if (options.only === 'jobs') {
    log(`${command}\njobs and webhooks:`);
    await runJobsBench(options, log);
    return 0;
  }
  if (options.only === 'mail') {
    log(`${command}\nmail:`);
    await runMailBench(options, log);
    return 0;
  }
  if (options.only === 'data') {
    log(`${command}\nexport and search:`);
    await runDataBench(resolveFwEntry(options.fwEntry, progress), options, log);
    return 0;
  }
  if (options.only === 'subsystems') {
    log(`${command}\nwhat a subsystem costs:`);
    await runSubsystemsBench(resolveFwEntry(options.fwEntry, progress), options, log);
    return 0;
  }
  if (options.only === 'ui') {
    log(
      `${command}\nadmin UI list (load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} on ${availableParallelism()} cores):`,
    );
    await runUiBench(resolveFwEntry(options.fwEntry, progress), options, log);
    return 0;
  }
  const started = new Date();
  const cleanup = cleanupStack();
  const onSignal = (signal: string) => {
    console.error(`\n${signal}: stopping servers and removing temporary data`);
    void cleanup.run().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const notes: string[] = [];
  const pinning = planPinning();
  notes.push(`Pinning: ${pinning.note}.`);
  const entry = resolveFwEntry(options.fwEntry, progress);
  notes.push(`${entry.note}.`);
  log(`${command}\n${pinning.note}; ${entry.note}`);

  const runs: RunResult[] = [];
  try {
    // The load worker boots (tsx, autocannon) while the baseline compiles.
    const loadStarting = LoadGenerator.start(pinning.load);
    loadStarting.catch(() => undefined);
    let baselineMain: string;
    try {
      baselineMain = buildBaseline();
    } finally {
      const started = await loadStarting.catch(() => undefined);
      if (started) cleanup.add(() => started.close());
    }
    const load = await loadStarting;
    const tmp = await mkdtemp(join(tmpdir(), 'fw-bench-'));
    cleanup.add(() => rm(tmp, { recursive: true, force: true }));
    const ctx: BenchContext = {
      options,
      entry,
      pinning,
      load,
      tmp,
      notes,
      log: progress,
      baselineMain,
      seq: { next: 1 },
      onCleanup: cleanup.add,
      onSize: (run, size) => printSize(run, size, log),
    };
    for (const dialect of options.dialects) runs.push(...(await benchDialect(dialect, ctx)));
  } finally {
    await cleanup.run();
  }

  const seeded = runs.flatMap((r) => r.sizes).find((s) => s.seed.added > 0);
  if (seeded && !seeded.seed.via.startsWith('frappe.client.insert_many')) {
    notes.push('fw has no frappe.client.insert_many yet: the table was seeded with one POST /api/resource/ToDo per document, and scenario (f) was skipped.');
  }
  const errors = countErrors(runs);
  const report: BenchReport = {
    command,
    date: started.toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      memoryGB: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${platform()} ${release()}`,
      loadAverage: loadavg(),
    },
    settings: {
      quick: options.quick,
      connections: options.connections,
      sliceSeconds: options.sliceSeconds,
      warmupSeconds: options.warmupSeconds,
      pairs: options.pairs,
      fwLogLevel: options.fwLogLevel,
    },
    notes: [...notes, ...standingNotes(options)],
    runs,
    targets: checkTargets(runs),
    errors,
  };
  printSummary(report, log);
  const jsonFile = options.json ?? join(ROOT, 'bench', 'results', `bench-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeJsonReport(jsonFile, report);
  log(`\nJSON: ${jsonFile}`);
  if (options.docs) {
    await updateBenchmarksDoc(join(ROOT, 'docs', 'benchmarks.md'), renderMarkdown(report));
    log('docs/benchmarks.md updated');
  }
  if (options.only !== 'http') {
    log('\njobs and webhooks:');
    await runJobsBench(options, log);
    log('\nexport and search:');
    await runDataBench(entry, options, log);
    log('\nmail:');
    await runMailBench(options, log);
    log('\nwhat a subsystem costs:');
    await runSubsystemsBench(entry, options, log);
    log('\nadmin UI list:');
    await runUiBench(entry, options, log);
  }
  if (errors > 0) {
    console.error(`bench: ${errors} failed requests (socket errors, timeouts or non-2xx); the figures are not valid`);
    return 1;
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
