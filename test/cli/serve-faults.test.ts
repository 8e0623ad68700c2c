import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSite } from '../../src/site/open-site.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { testDialects, type DialectCase } from '../helpers/dialects.js';
import { httpCall, type HttpAnswer, type HttpCall } from '../helpers/http-call.js';
import { runFw, startServe, type ServeProcess } from '../helpers/serve-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin, type WireAdmin } from '../helpers/wire-admin.js';

/** A local port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('fw serve refuses to start', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-faults-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('an invalid --workers or FW_WORKERS value is a usage error saying what is allowed, and no site is created', async () => {
    const runs: { site: string; flag: string[]; env: Record<string, string> }[] = [
      { site: join(dir, 'usage-zero'), flag: ['--workers=0'], env: {} },
      { site: join(dir, 'usage-word'), flag: ['--workers=many'], env: {} },
      { site: join(dir, 'usage-env'), flag: [], env: { FW_WORKERS: 'lots' } },
    ];
    const results = await Promise.all(runs.map((r) => runFw(['serve', '--site', r.site, '--port', '0', ...r.flag], { env: r.env })));
    for (const [i, result] of results.entries()) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /--workers must be a whole number from 1 to \d+, or "auto"/);
      await assert.rejects(stat(runs[i].site), { code: 'ENOENT' });
    }
  });

  test('an unreachable PostgreSQL at start is one clear error and exit code 1, with or without workers', async () => {
    const port = await closedPort();
    const results = await Promise.all(
      ['1', '2'].map(async (workers) => {
        const site = join(dir, `unreachable-${workers}`);
        await mkdir(site);
        const config = { db_url: `postgres://postgres@127.0.0.1:${port}/fw_nowhere`, encryption_key: 'k'.repeat(43) };
        await writeFile(join(site, 'site_config.json'), JSON.stringify(config));
        return runFw(['serve', '--site', site, '--port', '0', '--workers', workers]);
      }),
    );
    for (const result of results) {
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`fw serve: Could not reach PostgreSQL at 127\\.0\\.0\\.1:${port}/fw_nowhere`));
      assert.doesNotMatch(result.stdout, /worker \d+ starting|Server listening/, 'nothing was started');
    }
  });
});

test('a port already in use stops the cluster with exit code 1 instead of restarting workers for ever', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fw-port-'));
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = taken.address() as { port: number };
    const result = await runFw(['serve', '--site', join(dir, 'site'), '--port', String(port), '--workers', '2'], {
      env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
      timeoutMs: 90_000,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /EADDRINUSE/);
    assert.match(result.stdout, /while starting: stopping the cluster/);
    assert.doesNotMatch(result.stdout, /starting a replacement/);
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
});

const postgres: DialectCase | undefined = testDialects().find((d) => d.name === 'postgres');

describe('fw serve --workers 2 through a PostgreSQL outage', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, () => {
  let dir: string;
  let directUrl: string;
  let drop: (() => Promise<void>) | undefined;
  let proxy: TcpProxy | undefined;
  let serve: ServeProcess | undefined;
  let admin: WireAdmin;
  const doctype = 'Outage Note';

  // Generous bounds: a request that hangs fails the test, a slow machine does not.
  const call = (c: HttpCall): Promise<HttpAnswer> =>
    httpCall(serve!.baseUrl, { timeoutMs: 20_000, ...c, headers: { authorization: admin.authorization, ...c.headers } });
  /** As Guest, the way a load balancer asks. */
  const ready = () => httpCall(serve!.baseUrl, { method: 'GET', path: '/api/method/fw.ready', timeoutMs: 20_000 });
  const insert = (title: string) => call({ method: 'POST', path: `/api/resource/${encodeURIComponent(doctype)}`, body: { title } });
  const list = () => call({ method: 'GET', path: `/api/resource/${encodeURIComponent(doctype)}` });

  /** Polls until `probe` answers 200 (bounded), then asserts the next `n` calls of each kind all do. */
  async function assertRecovers(n: number): Promise<void> {
    let status = 0;
    for (let i = 0; i < 60 && status !== 200; i++) {
      status = (await ready().catch(() => undefined))?.status ?? 0;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(status, 200, 'fw.ready answers again once the database is back');
    for (let i = 0; i < n; i++) {
      for (const res of [await ready(), await list(), await insert(`after ${i}`)]) assert.equal(res.status, 200, res.text);
    }
  }

  function assertUnavailable(res: HttpAnswer, what: string): void {
    assert.equal(res.status, 503, `${what}: ${res.text}`);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json().exc_type, 'ServiceUnavailableError', what);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-outage-'));
    const db = await postgres!.createUrl();
    drop = db.drop;
    directUrl = db.url;
    const target = new URL(db.url);
    proxy = await TcpProxy.start({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
    const proxied = new URL(db.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const site = join(dir, 'site');
    await createSite(site, { dbUrl: proxied.toString(), adminPassword: ADMIN_PASSWORD });
    // A short wait for connections, so an outage shows as 503 within a second rather than after the 5 s default.
    const configFile = join(site, 'site_config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(configFile, JSON.stringify({ ...config, db_connect_timeout: 1, db_pool_size: 3 }));
    serve = await startServe(['--site', site], { workers: 2 });
    admin = await wireAdmin(serve.baseUrl, ADMIN_PASSWORD);
    const created = await call({
      method: 'POST',
      path: '/api/resource/DocType',
      body: { name: doctype, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }], permissions: [{ role: 'System Manager' }] },
    });
    assert.equal(created.status, 200, created.text);
  });

  after(async () => {
    await serve?.kill();
    await proxy?.close();
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  test('fw.ready answers ok while the database answers', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await ready();
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json(), { message: 'ok' });
    }
    assert.equal((await insert('before')).status, 200);
  });

  test('while the database refuses connections, requests answer 503 JSON, and service resumes by itself', async () => {
    await proxy!.setMode('down');
    for (let i = 0; i < 2; i++) {
      assertUnavailable(await ready(), 'fw.ready');
      assertUnavailable(await list(), 'list');
      assertUnavailable(await insert('during'), 'insert');
    }
    await proxy!.setMode('forward');
    await assertRecovers(3);
  });

  test('while the database does not answer at all, requests answer 503 after the connect timeout instead of hanging', async () => {
    await proxy!.setMode('blackhole');
    assertUnavailable(await ready(), 'fw.ready');
    assertUnavailable(await list(), 'list');
    assertUnavailable(await insert('during'), 'insert');
    await proxy!.setMode('forward');
    await assertRecovers(3);
  });

  test('after the server terminates every connection of the site, the next requests succeed again', async () => {
    const direct = await openDatabase(directUrl, { poolSize: 1 });
    let terminated: unknown[];
    try {
      terminated = await direct.read((q) =>
        q.all({
          sql: 'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
          parameters: [],
        }),
      );
    } finally {
      await direct.close();
    }
    assert.ok(terminated.length > 0, 'the workers held connections to terminate');
    await assertRecovers(5);
  });

  test('no worker died through the outages', () => {
    const primary = serve!.child.pid;
    const deaths = serve!.logs().filter((l) => l.pid === primary && / (exited with code|was killed by) /.test(l.msg));
    assert.deepEqual(deaths, []);
    assert.equal(serve!.liveWorkerPids().length, 2);
  });
});
