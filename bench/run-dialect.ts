import { join } from 'node:path';
import { openBaselineStore, type BaselineStore } from './baseline-store.js';
import { freePort } from './free-port.js';
import type { FwEntry } from './fw-entry.js';
import { createFwSite, startFw, type FwServeOptions, type FwServer, type FwSite } from './fw-process.js';
import type { LoadGenerator } from './load-generator.js';
import { listRowCounts, measureScenario, measureStream, type SeqCounter } from './measure.js';
import type { BenchOptions } from './options.js';
import type { Pinning } from './pinning.js';
import { createThrowawayDatabase, maskUrl, postgresReachable } from './postgres-admin.js';
import type { RunResult, ScenarioResult, SizeResult } from './report-types.js';
import { SCENARIOS, WRITE_MARK } from './scenarios.js';
import { insertManyAvailable, seedToDos, type SeedOutcome } from './seed.js';
import { spawnServer, waitUntilServing, type ServerProcess } from './server-process.js';

const NAMES_SAMPLED = 1000;

/** What every dialect's run shares. */
export interface BenchContext {
  readonly options: BenchOptions;
  readonly entry: FwEntry;
  readonly pinning: Pinning;
  readonly load: LoadGenerator;
  readonly tmp: string;
  /** The compiled baseline server's entry file. */
  readonly baselineMain: string;
  readonly seq: SeqCounter;
  readonly notes: string[];
  readonly log: (line: string) => void;
  /** Registers clean-up that must happen even when the run fails or is interrupted. */
  readonly onCleanup: (fn: () => Promise<void>) => void;
  /** Called with every size as soon as it is measured. */
  readonly onSize: (run: RunResult, size: SizeResult) => void;
}

/** The site for a dialect: a folder under tmp, and on PostgreSQL a throwaway database. */
async function makeSite(dialect: 'sqlite' | 'postgres', ctx: BenchContext): Promise<{ site: FwSite; dbUrl: string } | undefined> {
  const dir = join(ctx.tmp, dialect);
  if (dialect === 'sqlite') {
    const site = createFwSite(ctx.entry, dir, undefined);
    return { site, dbUrl: `sqlite:${join(dir, 'site.db')}` };
  }
  if (!(await postgresReachable(ctx.options.pgUrl))) {
    const why = `PostgreSQL not reachable at ${maskUrl(ctx.options.pgUrl)}`;
    if (ctx.options.postgresRequired) throw new Error(why);
    ctx.notes.push(`${why}: the PostgreSQL runs were skipped.`);
    return undefined;
  }
  const db = await createThrowawayDatabase(ctx.options.pgUrl);
  ctx.onCleanup(db.drop);
  return { site: createFwSite(ctx.entry, dir, db.url), dbUrl: db.url };
}

/** Tops the table up to `size` rows through an unpinned fw (seeding is set-up, not measurement). */
async function seedTo(size: number, site: FwSite, store: BaselineStore, ctx: BenchContext, insertMany: { known?: boolean }): Promise<SeedOutcome> {
  const rows = await store.count([]);
  const started = await startFw(ctx.entry, site, { cores: undefined, workers: 1, logLevel: ctx.options.fwLogLevel });
  if ('unsupported' in started) throw new Error(started.unsupported);
  const fw = started.server;
  ctx.onCleanup(() => fw.stop());
  try {
    insertMany.known ??= await insertManyAvailable(fw.origin, fw.auth);
    if (!insertMany.known) ctx.log('  frappe.client.insert_many answers 404: seeding with POST /api/resource/ToDo instead');
    const outcome = await seedToDos(fw.origin, fw.auth, rows, size, insertMany.known, ctx.log);
    await store.settle();
    return outcome;
  } finally {
    await fw.stop();
  }
}

/** Waits (up to 30 s) until the row count holds still: no write of a scenario is still on its way. */
async function waitUntilSettled(store: BaselineStore): Promise<void> {
  let last = await store.count([]);
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await store.count([]);
    if (now === last) return;
    last = now;
  }
}

async function sampleNames(store: BaselineStore): Promise<string[]> {
  const rows = await store.list({
    fields: ['name'],
    filters: [['description', 'like', 'bench-seed%']],
    orderBy: [['name', 'asc']],
    limit: NAMES_SAMPLED,
    offset: 0,
  });
  return rows.map((r) => String(r.name));
}

/**
 * Every scenario and then the unlimited list against one fw server. Reads run first, so they see
 * exactly the seeded rows; the rows the write scenarios add are deleted before the unlimited list.
 */
async function measureSize(
  fw: FwServer,
  baseline: ServerProcess,
  store: BaselineStore,
  size: number,
  seed: SeedOutcome,
  insertMany: boolean,
  connections: number,
  ctx: BenchContext,
): Promise<SizeResult> {
  const { options, load, seq } = ctx;
  const rows = await store.count([]);
  const names = await sampleNames(store);
  const fwTarget = { origin: fw.origin, pid: fw.pid, auth: fw.auth };
  const baseTarget = { origin: baseline.origin, pid: baseline.pid };
  const settings = {
    connections,
    sliceSeconds: options.sliceSeconds,
    warmupSeconds: options.warmupSeconds,
    pairs: options.pairs,
    idleWaitMs: options.quick ? 1_000 : 30_000,
  };
  const listRows = await listRowCounts(fwTarget, baseTarget);
  if (listRows.fw !== listRows.baseline || listRows.fw <= 0) {
    const warning = `at ${rows.toLocaleString('en')} rows the list page has ${listRows.fw} rows on fw and ${listRows.baseline} on the baseline`;
    ctx.log(`  warning: ${warning}`);
    ctx.notes.push(`Warning: ${warning}; the list figures there compare different work.`);
  }
  const scenarios: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    if (options.scenarios && !options.scenarios.includes(scenario.id)) continue;
    if (scenario.needsMethod === 'insert_many' && !insertMany) {
      scenarios.push({ id: scenario.id, title: scenario.title, skipped: 'fw has no frappe.client.insert_many yet' });
      continue;
    }
    ctx.log(`  ${scenario.title}`);
    scenarios.push(await measureScenario(load, fwTarget, baseTarget, scenario, names, settings, seq));
  }
  await waitUntilSettled(store);
  const removed = await store.remove([['description', 'like', `${WRITE_MARK}%`]]);
  ctx.log(`  removed ${removed.toLocaleString('en')} rows added by the write scenarios`);
  // Last: V8 keeps the heap this grows, which would otherwise count in every later scenario's peak.
  ctx.log(`  unlimited list over ${rows.toLocaleString('en')} rows`);
  const stream = await measureStream(fwTarget, baseTarget, options.streamRepeats);
  const peaks = scenarios.map((s) => s.fw?.peakRssMB).filter((p): p is number => p !== undefined);
  return { size, rows, seed, listRows, scenarios, stream, fwPeakRssMB: peaks.length ? Math.max(...peaks) : undefined };
}

/**
 * All sizes and worker counts on one engine: one site, one baseline process; per size the table is
 * seeded up to the size, then fw is started pinned (once per worker count) and measured.
 */
export async function benchDialect(dialect: 'sqlite' | 'postgres', ctx: BenchContext): Promise<RunResult[]> {
  const made = await makeSite(dialect, ctx);
  if (!made) return [];
  const baselineKind = dialect === 'sqlite' ? 'bare Fastify + better-sqlite3 on the same database file' : 'bare Fastify + pg (pool of 10) on the same database';
  // A run per start mode only when more than the default was asked for, so the usual report keeps its headings.
  const starts = ctx.options.start.length === 1 && ctx.options.start[0] === 'bin' ? [undefined] : ctx.options.start;
  const runs = starts.flatMap((start) =>
    ctx.options.workers.flatMap((workers) =>
      ctx.options.connections.map((connections): RunResult & { sizes: SizeResult[] } => ({
        dialect,
        workers,
        ...(start ? { start } : {}),
        connections,
        baseline: baselineKind,
        sizes: [],
      })),
    ),
  );
  const store = await openBaselineStore(made.dbUrl);
  ctx.onCleanup(() => store.close());
  const port = await freePort();
  const baseline = spawnServer({ name: 'baseline', args: [ctx.baselineMain, made.dbUrl, String(port)], cores: ctx.pinning.server, port });
  ctx.onCleanup(() => baseline.stop());
  await waitUntilServing(baseline, '/api/method/ping');
  const insertMany: { known?: boolean } = {};
  const skipped = new Map<string, string>();

  for (const size of ctx.options.sizes) {
    ctx.log(`\n${dialect}: ${size.toLocaleString('en')} rows`);
    const seed = await seedTo(size, made.site, store, ctx, insertMany);
    for (const run of runs) {
      if (skipped.has(`${run.workers} ${run.start}`)) continue;
      const start = run.start as FwServeOptions['start'];
      const started = await startFw(ctx.entry, made.site, { cores: ctx.pinning.server, workers: run.workers, logLevel: ctx.options.fwLogLevel, start });
      if ('unsupported' in started) {
        skipped.set(`${run.workers} ${run.start}`, started.unsupported);
        ctx.log(`  --workers ${run.workers}: ${started.unsupported}; skipped`);
        continue;
      }
      const fw = started.server;
      ctx.onCleanup(() => fw.stop());
      try {
        ctx.log(
          `  fw ${run.workers > 1 ? `with ${run.workers} workers ` : ''}${start ? `started by ${start} ` : ''}pid ${fw.pid}, baseline pid ${baseline.pid}, ${run.connections} connections`,
        );
        const result = await measureSize(fw, baseline, store, size, seed, insertMany.known ?? false, run.connections, ctx);
        run.sizes.push(result);
        ctx.onSize(run, result);
      } finally {
        await fw.stop();
      }
    }
  }
  return runs.map((run) => (skipped.has(`${run.workers} ${run.start}`) ? { ...run, skipped: skipped.get(`${run.workers} ${run.start}`) } : run));
}
