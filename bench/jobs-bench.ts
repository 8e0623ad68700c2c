// The jobs part of `npm run bench` (docs/benchmarks.md "Jobs and webhooks"): jobs run per second
// through the queue with a no-op handler, webhook deliveries per second to a local receiver, and
// the insert throughput with one matching webhook relative to none. In process, per dialect.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/http/app.js';
import { countJobs } from '../src/jobs/job-store.js';
import { startSiteWorker } from '../src/site/site-jobs.js';
import { createSite, openSite } from '../src/site/open-site.js';
import { sitePaths } from '../src/site/site-paths.js';
import type { Site } from '../src/site/site.js';
import { benchDatabase, type ThrowawayDatabase } from './postgres-admin.js';

/** Figures of one dialect. */
export interface JobsBenchResult {
  readonly dialect: 'sqlite' | 'postgres';
  readonly jobsPerSecond: number;
  readonly deliveriesPerSecond: number;
  readonly insertsPerSecondWithout: number;
  readonly insertsPerSecondWith: number;
  readonly ratio: number;
}

const PASSWORD = 'bench-Secret-42';

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function adminToken(app: FastifyInstance): Promise<string> {
  const login = await app.inject({ method: 'POST', url: '/api/method/login', payload: { usr: 'Administrator', pwd: PASSWORD } });
  const sid = login.cookies.find((c) => c.name === 'sid')?.value ?? '';
  const keys = await app.inject({
    method: 'POST',
    url: '/api/method/fw.core.doctype.user.user.generate_keys',
    payload: { user: 'Administrator' },
    cookies: { sid },
  });
  const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
  return `token ${api_key}:${api_secret}`;
}

/** Inserts ToDos one request at a time for `seconds`; answers requests per second. */
async function insertRate(app: FastifyInstance, auth: string, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const start = performance.now();
  while (performance.now() < end) {
    const res = await app.inject({ method: 'POST', url: '/api/resource/ToDo', headers: { authorization: auth }, payload: { description: `bench ${n}` } });
    if (res.statusCode !== 200) throw new Error(`insert failed: ${res.statusCode} ${res.body}`);
    n += 1;
  }
  return n / ((performance.now() - start) / 1000);
}

async function benchSite(site: Site, dialect: 'sqlite' | 'postgres', quick: boolean, log: (line: string) => void): Promise<JobsBenchResult> {
  const app = await buildApp(site);
  const auth = await adminToken(app);
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    // 1. Jobs per second: enqueue in one transaction, then time the workers draining the queue.
    const jobCount = quick ? 100 : 3000;
    site.jobs.register('bench.noop', () => {});
    await site.db.transaction(async (q) => {
      for (let i = 0; i < jobCount; i += 1) await site.jobs.enqueue('bench.noop', { i }, { unit: { q } });
    });
    let started = performance.now();
    const running = startSiteWorker(site, { concurrency: 4 });
    await waitFor(async () => (await site.db.read((q) => countJobs(q, site.db.dialect))).queued === 0);
    await waitFor(async () => (await site.db.read((q) => countJobs(q, site.db.dialect))).running === 0);
    const jobsPerSecond = jobCount / ((performance.now() - started) / 1000);
    await running.stop();
    log(`  ${dialect}: ${jobCount} no-op jobs at ${jobsPerSecond.toFixed(0)} jobs/s`);

    // 2. The insert cost of a matching webhook (workers stopped: only the recording is measured),
    // interleaved slices to even out a shared machine.
    const seconds = quick ? 0.5 : 3;
    const hook = await app.inject({
      method: 'POST',
      url: '/api/resource/Webhook',
      headers: { authorization: auth },
      payload: {
        webhook_doctype: 'ToDo',
        webhook_docevent: 'after_insert',
        request_url: url,
        enabled: 0,
        webhook_json: '{"name": "{{ doc.name }}", "text": "{{ doc.description }}"}',
      },
    });
    const hookName = hook.json().data.name as string;
    const setEnabled = (enabled: number) =>
      app.inject({ method: 'PUT', url: `/api/resource/Webhook/${hookName}`, headers: { authorization: auth }, payload: { enabled } });
    await insertRate(app, auth, seconds / 2); // warm-up
    const without: number[] = [];
    const withHook: number[] = [];
    for (let pair = 0; pair < (quick ? 1 : 3); pair += 1) {
      await setEnabled(0);
      without.push(await insertRate(app, auth, seconds));
      await setEnabled(1);
      withHook.push(await insertRate(app, auth, seconds));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const insertsPerSecondWithout = median(without);
    const insertsPerSecondWith = median(withHook);
    log(
      `  ${dialect}: inserts ${insertsPerSecondWithout.toFixed(0)}/s without a webhook, ${insertsPerSecondWith.toFixed(0)}/s with one (ratio ${(insertsPerSecondWith / insertsPerSecondWithout).toFixed(2)})`,
    );

    // 3. Deliveries per second: the deliveries those inserts recorded, drained by the workers.
    // The outbox's last batch is written first, so every recorded delivery has its job.
    await site.jobs.flushSources();
    const pending = (await site.db.read((q) => countJobs(q, site.db.dialect))).queued;
    started = performance.now();
    const delivering = startSiteWorker(site, { concurrency: 8 });
    await waitFor(async () => {
      const c = await site.db.read((q) => countJobs(q, site.db.dialect));
      return c.queued === 0 && c.running === 0;
    });
    const deliveriesPerSecond = pending / ((performance.now() - started) / 1000);
    await delivering.stop();
    log(`  ${dialect}: ${pending} webhook deliveries at ${deliveriesPerSecond.toFixed(0)}/s`);
    return {
      dialect,
      jobsPerSecond,
      deliveriesPerSecond,
      insertsPerSecondWithout,
      insertsPerSecondWith,
      ratio: insertsPerSecondWith / insertsPerSecondWithout,
    };
  } finally {
    receiver.close();
    await app.close();
  }
}

/** Runs the jobs bench on each dialect asked for (PostgreSQL skipped when unreachable unless required). */
export async function runJobsBench(
  options: { dialects: readonly ('sqlite' | 'postgres')[]; postgresRequired: boolean; pgUrl: string; quick: boolean },
  log: (line: string) => void,
): Promise<JobsBenchResult[]> {
  const results: JobsBenchResult[] = [];
  for (const dialect of options.dialects) {
    let db: ThrowawayDatabase | undefined;
    const dir = await mkdtemp(join(tmpdir(), 'fw-bench-jobs-'));
    try {
      const found = await benchDatabase(dialect, options, log);
      if (found === 'skip') continue;
      db = found;
      await createSite(dir, { dbUrl: db?.url, adminPassword: PASSWORD });
      // The bench's receiver listens on loopback, which webhooks refuse unless the operator allows it.
      const configFile = sitePaths(dir).config;
      const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
      await writeFile(configFile, JSON.stringify({ ...config, webhook_allowed_targets: ['127.0.0.1'] }, null, 2), { mode: 0o600 });
      const site = await openSite(dir);
      try {
        results.push(await benchSite(site, dialect, options.quick, log));
      } finally {
        await site.close();
      }
    } finally {
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
