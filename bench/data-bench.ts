// The data part of `npm run bench` (docs/import-export.md "Export", docs/search.md): export rows
// per second and the server's peak memory for 100k and 1M rows (an `fw serve` process, read from
// /proc), global search queries per second over 100k indexed documents, and the insert rate of a
// DocType with global search fields over one without (target: at least 0.8). Per dialect.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { JobWorker } from '../src/jobs/job-worker.js';
import { insertRate, median, openInProcessSite } from './in-process-site.js';
import { createFwSite, startFw } from './fw-process.js';
import type { FwEntry } from './fw-entry.js';
import { createThrowawayDatabase, postgresReachable } from './postgres-admin.js';
import { peakRssBytes, resetPeakRss } from './process-memory.js';

export interface DataBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly postgresRequired: boolean;
  readonly pgUrl: string;
  readonly quick: boolean;
}

const WORDS = ['apple', 'pear', 'plum', 'cherry', 'melon', 'grape', 'lemon', 'lime', 'mango', 'peach', 'kiwi', 'fig', 'date', 'olive', 'guava', 'papaya'];

async function adminToken(origin: string, password: string): Promise<string> {
  const login = await fetch(`${origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ usr: 'Administrator', pwd: password }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('sid='))!
    .split(';')[0];
  const keys = await fetch(`${origin}/api/method/fw.core.doctype.user.user.generate_keys`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: '{"user":"Administrator"}',
  });
  const { api_key, api_secret } = ((await keys.json()) as { message: { api_key: string; api_secret: string } }).message;
  return `token ${api_key}:${api_secret}`;
}

/** Writes rows `from + 1` to `to` of `table` straight into it (the API would take minutes). */
async function fillRows(
  engine: 'sqlite' | 'postgres',
  dbFile: string | undefined,
  dbUrl: string | undefined,
  table: string,
  from: number,
  to: number,
): Promise<void> {
  const words = WORDS.map((w) => `'${w}'`);
  if (engine === 'sqlite') {
    const db = new Database(dbFile!);
    db.pragma('busy_timeout = 10000');
    db.prepare(
      `insert into "${table}" (name, owner, creation, modified, modified_by, docstatus, idx, title, notes, amount, due)
       with recursive s(i) as (select ? union all select i + 1 from s where i < ?)
       select printf('ROW-%08d', i), 'Administrator', strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' seconds') || '.000000',
                strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' seconds') || '.000000', 'Administrator', 0, 0,
              'row ' || i || ' ' || (case i % 16 ${words.map((w, k) => `when ${k} then ${w}`).join(' ')} end),
              'Notes for row ' || i || ': some text about the document, long enough to be a realistic cell.', i * 0.25, '2025-02-03' from s`,
    ).run(from + 1, to);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query(
      `insert into "${table}" (name, owner, creation, modified, modified_by, docstatus, idx, title, notes, amount, due)
       select 'ROW-' || lpad(i::text, 8, '0'), 'Administrator', timestamp '2025-01-01' + i * interval '1 second',
              timestamp '2025-01-01' + i * interval '1 second', 'Administrator', 0, 0,
              'row ' || i || ' ' || (array[${words.join(',')}])[i % 16 + 1],
              'Notes for row ' || i || ': some text about the document, long enough to be a realistic cell.', i * 0.25, '2025-02-03'
       from generate_series($1::int, $2::int) as i`,
      [from + 1, to],
    );
  } finally {
    await client.end();
  }
}

const SLIP_FIELDS = (search: 0 | 1) => [
  { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_global_search: search },
  { fieldname: 'notes', label: 'Notes', fieldtype: 'Small Text', in_global_search: search },
  { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
  { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
];

/** Export: rows per second and peak server memory, for each size, CSV and Excel. */
async function exportBench(
  entry: FwEntry,
  dialect: 'sqlite' | 'postgres',
  dbUrl: string | undefined,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-bench-export-'));
  const site = createFwSite(entry, dir, dbUrl);
  const started = await startFw(entry, site, { cores: undefined, workers: 1, logLevel: 'warn' });
  if ('unsupported' in started) throw new Error(started.unsupported);
  const { server } = started;
  try {
    const auth = await adminToken(server.origin, site.adminPassword);
    const res = await fetch(`${server.origin}/api/resource/DocType`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench Export', fields: SLIP_FIELDS(0), permissions: [{ role: 'System Manager', read: 1, export: 1 }] }),
    });
    if (res.status !== 200) throw new Error(`DocType: ${res.status} ${await res.text()}`);
    let filled = 0;
    for (const size of quick ? [10_000, 50_000] : [100_000, 1_000_000]) {
      await fillRows(dialect, dbUrl ? undefined : join(dir, 'site.db'), dbUrl, 'tabBench Export', filled, size);
      filled = size;
      for (const format of ['CSV', 'Excel']) {
        resetPeakRss(server.pid);
        const t0 = performance.now();
        const answer = await fetch(`${server.origin}/api/method/fw.desk.reportview.export_query?doctype=Bench%20Export&file_format_type=${format}`, {
          headers: { authorization: auth },
        }).catch((err: Error) => {
          throw new Error(`export ${size} ${format} failed: ${err.message}; server output:\n${server.output()}`);
        });
        if (answer.status !== 200) throw new Error(`export: ${answer.status} ${await answer.text()}`);
        let bytes = 0;
        for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
        const seconds = (performance.now() - t0) / 1000;
        const peak = peakRssBytes(server.pid);
        log(
          `  ${dialect}: export ${size} rows ${format}: ${(size / seconds).toFixed(0)} rows/s, ${(bytes / 2 ** 20).toFixed(1)} MiB, server peak RSS ${peak === undefined ? '?' : (peak / 2 ** 20).toFixed(0)} MiB`,
        );
      }
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Search qps over an indexed corpus, and the insert rate with search fields over without. */
async function searchBench(dialect: 'sqlite' | 'postgres', dbUrl: string | undefined, quick: boolean, log: (line: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-bench-search-'));
  const bench = await openInProcessSite(dir, dbUrl);
  const { site, app, auth } = bench;
  try {
    for (const [name, search] of [
      ['Bench Found', 1],
      ['Bench Plain', 0],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/resource/DocType',
        headers: { authorization: auth },
        payload: { name, fields: SLIP_FIELDS(search) },
      });
      if (res.statusCode !== 200) throw new Error(`DocType: ${res.body}`);
    }
    const docs = quick ? 10_000 : 100_000;
    await fillRows(dialect, dbUrl ? undefined : join(dir, 'site.db'), dbUrl, 'tabBench Found', 0, docs);
    let t0 = performance.now();
    await app.inject({
      method: 'POST',
      url: '/api/method/fw.utils.global_search.rebuild_for_doctype',
      headers: { authorization: auth },
      payload: { doctype: 'Bench Found' },
    });
    await new JobWorker(site.jobs).runDue();
    log(`  ${dialect}: indexed ${docs} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const queries = quick ? 100 : 1000;
    t0 = performance.now();
    for (let i = 0; i < queries; i++) {
      const text = i % 4 === 3 ? `ROW-${String((i * 7919) % docs).padStart(8, '0')}` : `${WORDS[i % 16]} ${i % 2 ? 'notes' : ''}`;
      const res = await app.inject({
        method: 'GET',
        url: `/api/method/frappe.utils.global_search.search?text=${encodeURIComponent(text)}`,
        headers: { authorization: auth },
      });
      if (res.statusCode !== 200) throw new Error(`search: ${res.body}`);
    }
    log(`  ${dialect}: search over ${docs} documents: ${(queries / ((performance.now() - t0) / 1000)).toFixed(0)} queries/s (one at a time)`);
    const seconds = quick ? 0.5 : 3;
    const body = (n: number) => ({ title: `insert ${n} ${WORDS[n % 16]}`, notes: 'some notes' });
    await insertRate(bench, 'Bench Found', seconds / 2, body);
    const without: number[] = [];
    const withSearch: number[] = [];
    for (let pair = 0; pair < (quick ? 1 : 3); pair++) {
      without.push(await insertRate(bench, 'Bench Plain', seconds, body));
      withSearch.push(await insertRate(bench, 'Bench Found', seconds, body));
    }
    const a = median(without);
    const b = median(withSearch);
    log(`  ${dialect}: inserts ${a.toFixed(0)}/s without search fields, ${b.toFixed(0)}/s with (ratio ${(b / a).toFixed(2)}, target >= 0.8)`);
  } finally {
    await bench.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the data bench on each dialect asked for (PostgreSQL skipped when unreachable unless required). */
export async function runDataBench(entry: FwEntry, options: DataBenchOptions, log: (line: string) => void): Promise<void> {
  for (const dialect of options.dialects) {
    let dbs: Array<{ url: string; drop(): Promise<void> }> = [];
    try {
      if (dialect === 'postgres') {
        if (!(await postgresReachable(options.pgUrl))) {
          if (options.postgresRequired) throw new Error('PostgreSQL is not reachable');
          log('  postgres: not reachable, skipped');
          continue;
        }
        dbs = [await createThrowawayDatabase(options.pgUrl), await createThrowawayDatabase(options.pgUrl)];
      }
      await exportBench(entry, dialect, dbs[0]?.url, options.quick, log);
      await searchBench(dialect, dbs[1]?.url, options.quick, log);
    } finally {
      for (const db of dbs) await db.drop();
    }
  }
}
