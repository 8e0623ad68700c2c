// The subsystems part of `npm run bench` (docs/benchmarks.md "What a subsystem costs"). Per engine,
// two `fw serve` processes from bin/fw.js on the server core: one plain, one with mail (an Email
// Account and an Email Notification), global search, a Workflow and an assignment all on another
// DocType, and S3 storage (s3rver on loopback). In interleaved slices: (a) the insert and GET-one
// rates of the configured server over the plain one's, on the DocType none of it matches (goal: no
// more than 3 % lower); (b) on the configured server, the insert rate with one matching Email
// Notification, search index or active Workflow over the rate without (goal: at least 0.8).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FwEntry } from './fw-entry.js';
import { createFwSite, startFw, type FwServer } from './fw-process.js';
import { LoadGenerator } from './load-generator.js';
import type { RequestSpec } from './load-protocol.js';
import { planPinning } from './pinning.js';
import { benchDatabase, type ThrowawayDatabase } from './postgres-admin.js';
import { spread } from './stats.js';
import { adminClient, NOTE, SEARCHED_NOTE, setUpConfigured, setUpPlain, toggle, type AdminClient } from './subsystems-setup.js';

export interface SubsystemsBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly postgresRequired: boolean;
  readonly pgUrl: string;
  readonly quick: boolean;
  readonly sliceSeconds: number;
  readonly warmupSeconds: number;
  readonly pairs: number;
  readonly fwLogLevel: string;
}

const CONNECTIONS = 10;
const loadLine = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} on ${availableParallelism()} cores`;
/** A port nothing listens on: the Email Account is only configured, never used by a measured write. */
const UNUSED_SMTP_PORT = 9;

const insertOf = (doctype: string): RequestSpec => ({
  method: 'POST',
  path: `/api/resource/${encodeURIComponent(doctype)}`,
  body: JSON.stringify({ title: 'bench note {{seq}}', notes: 'call the supplier about the delayed order' }),
});
const GET_ONE: RequestSpec = { method: 'GET', path: `/api/resource/${encodeURIComponent(NOTE)}/{{name}}` };

/** One server of the comparison: its process, its Administrator and the notes it was seeded with. */
interface Side {
  readonly server: FwServer;
  readonly admin: AdminClient;
  readonly names: string[];
}

async function startSide(
  entry: FwEntry,
  root: string,
  label: string,
  db: ThrowawayDatabase | undefined,
  fileStorage: Record<string, unknown> | undefined,
  options: SubsystemsBenchOptions,
  cores: string | undefined,
): Promise<Side> {
  const site = createFwSite(entry, join(root, label), db?.url);
  if (fileStorage) {
    const configFile = join(site.dir, 'site_config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(configFile, JSON.stringify({ ...config, file_storage: fileStorage }, null, 2), { mode: 0o600 });
  }
  // No job workers: a matching Email Notification's job waits in the queue, so a slice measures what
  // the write pays, as the mail bench does, and not the mail being composed beside it.
  const started = await startFw(entry, site, { cores, workers: 1, logLevel: options.fwLogLevel, extraArgs: ['--jobs', '0'] });
  if ('unsupported' in started) throw new Error(started.unsupported);
  const { server } = started;
  try {
    const admin = await adminClient(server.origin, site.adminPassword);
    await setUpPlain(admin);
    if (fileStorage) await setUpConfigured(admin, UNUSED_SMTP_PORT);
    const names: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${server.origin}/api/resource/${encodeURIComponent(NOTE)}`, {
        method: 'POST',
        headers: { authorization: server.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `seeded ${i}`, notes: 'seeded' }),
      });
      if (res.status !== 200) throw new Error(`seeding ${NOTE} answered ${res.status}: ${await res.text()}`);
      names.push(((await res.json()) as { data: { name: string } }).data.name);
    }
    return { server, admin, names };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** Runs the slices of one engine and logs the figures. */
async function measure(load: LoadGenerator, plain: Side, conf: Side, dialect: string, options: SubsystemsBenchOptions, log: (line: string) => void) {
  let seq = 1;
  /** One slice's rate; a warm-up (`measured` false) may end with requests cut off, which are not errors of fw. */
  const slice = async (side: Side, request: RequestSpec, seconds: number, measured = true): Promise<number> => {
    const r = await load.run({
      origin: side.server.origin,
      connections: CONNECTIONS,
      durationSec: seconds,
      requests: [{ ...request, headers: { authorization: side.server.auth } }],
      names: side.names,
      seqStart: seq,
    });
    seq = r.seqEnd + 1;
    if (r.non2xx > 0 || (measured && r.errors > 0))
      throw new Error(`${side.server.origin}: ${r.errors} errors, ${r.non2xx} answers not 2xx (${JSON.stringify(r.statusCodes)})`);
    return r.responses / r.elapsedSec;
  };
  const matching = async (what: 'notification' | 'workflow' | 'search'): Promise<number> => {
    if (what === 'search') return slice(conf, insertOf(SEARCHED_NOTE), options.sliceSeconds);
    // A Notification or Workflow save bumps the metadata version, which the server reloads on its
    // next request: an unmeasured moment of inserts after each switch keeps that out of the slices.
    const settle = () => slice(conf, insertOf(NOTE), Math.min(1, options.warmupSeconds), false);
    await toggle(conf.admin, what, true);
    try {
      await settle();
      return await slice(conf, insertOf(NOTE), options.sliceSeconds);
    } finally {
      await toggle(conf.admin, what, false);
      await settle();
    }
  };
  for (const side of [plain, conf]) {
    await slice(side, insertOf(NOTE), options.warmupSeconds, false);
    await slice(side, GET_ONE, options.warmupSeconds, false);
  }
  await slice(conf, insertOf(SEARCHED_NOTE), options.warmupSeconds, false);
  const rows = {
    insertPlain: [] as number[],
    insertConf: [] as number[],
    getPlain: [] as number[],
    getConf: [] as number[],
    without: [] as number[],
    notification: [] as number[],
    search: [] as number[],
    workflow: [] as number[],
  };
  // (a) first, so that both servers have written the same when it is measured (the slices of (b)
  // grow the configured server's tables, job queue and WAL).
  for (let pair = 0; pair < options.pairs; pair++) {
    // Which server goes first alternates, so neither always follows the other's writes.
    const order = pair % 2 === 0 ? [plain, conf] : [conf, plain];
    for (const side of order) (side === plain ? rows.insertPlain : rows.insertConf).push(await slice(side, insertOf(NOTE), options.sliceSeconds));
    for (const side of order) (side === plain ? rows.getPlain : rows.getConf).push(await slice(side, GET_ONE, options.sliceSeconds));
  }
  for (let pair = 0; pair < options.pairs; pair++) {
    rows.without.push(await slice(conf, insertOf(NOTE), options.sliceSeconds));
    rows.notification.push(await matching('notification'));
    rows.search.push(await matching('search'));
    rows.workflow.push(await matching('workflow'));
  }
  const ratios = (a: number[], b: number[]) => spread(a.map((x, i) => x / b[i]));
  const fmt = (s: { median: number; min: number; max: number }, digits = 2) =>
    `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}..${s.max.toFixed(digits)})`;
  const rate = (xs: number[]) => fmt(spread(xs), 0);
  log(`  ${dialect}: (a) configured, not matching, over plain (goal: >= 0.97):`);
  log(`    insert ${fmt(ratios(rows.insertConf, rows.insertPlain))}: ${rate(rows.insertConf)} vs ${rate(rows.insertPlain)} req/s`);
  log(`    GET one ${fmt(ratios(rows.getConf, rows.getPlain))}: ${rate(rows.getConf)} vs ${rate(rows.getPlain)} req/s`);
  log(`  ${dialect}: (b) insert with one matching over without, on the configured server (goal: >= 0.8):`);
  log(`    Email Notification (New) ${fmt(ratios(rows.notification, rows.without))}: ${rate(rows.notification)} vs ${rate(rows.without)} req/s`);
  log(`    search index (in_global_search) ${fmt(ratios(rows.search, rows.without))}: ${rate(rows.search)} req/s`);
  log(`    active Workflow ${fmt(ratios(rows.workflow, rows.without))}: ${rate(rows.workflow)} req/s`);
}

/** Runs the subsystems bench on each dialect asked for (PostgreSQL skipped when unreachable unless required). */
export async function runSubsystemsBench(entry: FwEntry, options: SubsystemsBenchOptions, log: (line: string) => void): Promise<void> {
  const pinning = planPinning();
  log(`  ${pinning.note}; ${CONNECTIONS} connections, ${options.pairs} interleaved slices of ${options.sliceSeconds} s per figure; ${loadLine()}`);
  const load = await LoadGenerator.start(pinning.load);
  const { startS3Server } = await import('../test/helpers/s3-server.js');
  const s3 = await startS3Server();
  try {
    for (const dialect of options.dialects) {
      const root = await mkdtemp(join(tmpdir(), 'fw-bench-subsystems-'));
      const dbs: ThrowawayDatabase[] = [];
      const sides: Side[] = [];
      try {
        const database = async () => {
          const found = await benchDatabase(dialect, options, log);
          if (found && found !== 'skip') dbs.push(found);
          return found;
        };
        const plainDb = await database();
        if (plainDb === 'skip') continue;
        const confDb = await database();
        if (confDb === 'skip') continue;
        sides.push(await startSide(entry, root, 'plain', plainDb, undefined, options, pinning.server));
        sides.push(await startSide(entry, root, 'configured', confDb, s3.fileStorage(), options, pinning.server));
        await measure(load, sides[0], sides[1], dialect, options, log);
      } finally {
        for (const side of sides) await side.server.stop();
        for (const db of dbs) await db.drop();
        await rm(root, { recursive: true, force: true });
      }
    }
    log(`  after: ${loadLine()}`);
  } finally {
    await load.close();
    await s3.close();
  }
}
