import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { httpCall, type HttpAnswer, type HttpCall } from '../helpers/http-call.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin, type WireAdmin } from '../helpers/wire-admin.js';

// `fw serve --workers 2` as a real process tree: what one worker does, the other must see at once.

const TITLE = { fieldname: 'title', label: 'Title', fieldtype: 'Data' };

/** Runs `work(i)` for i in [0, count) with at most `width` calls in flight; results in order. */
async function inParallel<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
  return results;
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

for (const dialect of testDialects()) {
  describe(`fw serve --workers 2 (${dialect.name})`, () => {
    let dir: string;
    let drop: (() => Promise<void>) | undefined;
    let serve: ServeProcess | undefined;
    let admin: WireAdmin;

    const call = (c: HttpCall): Promise<HttpAnswer> => httpCall(serve!.baseUrl, c);
    const asAdmin = (c: HttpCall): Promise<HttpAnswer> => call({ ...c, headers: { authorization: admin.authorization, ...c.headers } });
    const createDocType = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await asAdmin({
        method: 'POST',
        path: '/api/resource/DocType',
        body: { name, fields: [TITLE], permissions: [{ role: 'System Manager' }], ...extra },
      });
      assert.equal(res.status, 200, res.text);
    };
    const insert = (doctype: string, title: string) => asAdmin({ method: 'POST', path: `/api/resource/${encodeURIComponent(doctype)}`, body: { title } });
    const listAll = async (doctype: string): Promise<{ name: string; title: string }[]> => {
      const query = `fields=${encodeURIComponent('["name","title"]')}&limit_page_length=0`;
      const res = await asAdmin({ method: 'GET', path: `/api/resource/${encodeURIComponent(doctype)}?${query}` });
      assert.equal(res.status, 200, res.text);
      return res.json().data as { name: string; title: string }[];
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-cluster-'));
      const db = await dialect.createUrl();
      drop = db.drop;
      serve = await startServe(['--site', join(dir, 'site'), '--db', db.url], {
        workers: 2,
        env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
      });
      admin = await wireAdmin(serve.baseUrl, ADMIN_PASSWORD);
    });

    after(async () => {
      await serve?.kill();
      await drop?.();
      await rm(dir, { recursive: true, force: true });
    });

    test('the primary starts two workers and fw.ready answers ok through them', async () => {
      assert.equal(serve!.liveWorkerPids().length, 2);
      for (let i = 0; i < 4; i++) {
        const res = await call({ method: 'GET', path: '/api/method/fw.ready' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.json(), { message: 'ok' });
      }
    });

    test('a DocType created through one request is usable by every following request, on both workers', async () => {
      const doctype = 'Cluster Note';
      const since = Date.now();
      await createDocType(doctype);
      const answers = await inParallel(20, 1, (i) =>
        i % 2 === 0 ? insert(doctype, `note ${i}`) : asAdmin({ method: 'GET', path: `/api/resource/${encodeURIComponent(doctype)}` }),
      );
      for (const res of answers) assert.equal(res.status, 200, res.text);
      assert.equal((await listAll(doctype)).length, 10);
      // The workers' request logs show that both served: the test covers the cross-process path.
      const servedBy = new Set<number>();
      await serve!.waitForLog((l) => {
        if (l.msg === 'request completed' && (l.time as number) >= since) servedBy.add(l.pid);
        return servedBy.size >= 2;
      }, 15_000);
    });

    test('a session started by one login is honoured by every worker', async () => {
      const answers = await inParallel(20, 1, () => call({ method: 'GET', path: '/api/method/fw.auth.get_logged_user', headers: { cookie: admin.cookie } }));
      for (const res of answers) {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json().message, 'Administrator');
      }
    });

    test('concurrent inserts into one naming series from both workers never repeat a name', async () => {
      const doctype = 'Cluster Serial';
      await createDocType(doctype, { autoname: 'SER-.#####' });
      const answers = await inParallel(100, 10, (i) => insert(doctype, `serial ${i}`));
      const names = answers.map((res) => {
        assert.equal(res.status, 200, res.text);
        return (res.json().data as { name: string }).name;
      });
      for (const name of names) assert.match(name, /^SER-\d{5}$/);
      assert.equal(new Set(names).size, 100);
      assert.deepEqual(new Set((await listAll(doctype)).map((d) => d.name)), new Set(names));
    });

    test('a worker killed during a stream of writes is replaced and every acknowledged write is kept', async () => {
      const doctype = 'Cluster Write';
      await createDocType(doctype);
      const primary = serve!.child.pid;
      const initial = serve!.liveWorkerPids();
      assert.equal(initial.length, 2);
      const victim = initial[0];
      let replaced = false;
      const replacement = serve!
        .waitForLog((l) => l.pid === primary && / listening on /.test(l.msg) && !initial.includes(l.workerPid as number), 60_000)
        .then(() => (replaced = true));
      replacement.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled

      const acknowledged = new Map<string, string>();
      let ackedAfterReplacement = 0;
      let killed = false;
      let attempts = 0;
      const deadline = Date.now() + 75_000;
      const writer = async () => {
        while (!(replaced && ackedAfterReplacement >= 20) && Date.now() < deadline) {
          const title = `write ${attempts++}`;
          // A connection the primary handed to the worker as it died gets no answer (node's cluster
          // drops it): give up on it soon. Only answered writes count as acknowledged.
          const res = await asAdmin({
            method: 'POST',
            path: `/api/resource/${encodeURIComponent(doctype)}`,
            body: { title },
            timeoutMs: 5_000,
          }).catch(() => undefined);
          if (res?.status !== 200) continue;
          acknowledged.set((res.json().data as { name: string }).name, title);
          if (replaced) ackedAfterReplacement++;
          if (!killed && acknowledged.size >= 10) {
            killed = true;
            process.kill(victim, 'SIGKILL');
          }
        }
      };
      await Promise.all([writer(), writer(), writer(), writer()]);
      await replacement;
      assert.ok(killed, 'the worker was killed mid-stream');
      assert.ok(ackedAfterReplacement >= 20, `writes acknowledged after the replacement came up: ${ackedAfterReplacement}`);
      await serve!.waitForLog((l) => l.pid === primary && l.workerPid === victim && /was killed by SIGKILL/.test(l.msg), 15_000);

      const stored = new Map((await listAll(doctype)).map((d) => [d.name, d.title]));
      for (const [name, title] of acknowledged) assert.equal(stored.get(name), title, `acknowledged write ${name} is stored`);
      assert.equal(serve!.liveWorkerPids().length, 2);
      for (let i = 0; i < 6; i++) assert.equal((await call({ method: 'GET', path: '/api/method/fw.ready' })).status, 200);
    });

    test('a rotated API secret is refused by every worker once the documented second has passed', async () => {
      const old = admin.authorization;
      // Both workers verify the old secret and remember it.
      for (const res of await inParallel(8, 1, () => call({ method: 'GET', path: '/api/method/fw.auth.get_logged_user', headers: { authorization: old } }))) {
        assert.equal(res.status, 200, res.text);
      }
      const rotated = await call({
        method: 'POST',
        path: '/api/method/fw.core.doctype.user.user.generate_keys',
        headers: { cookie: admin.cookie },
        body: { user: 'Administrator' },
      });
      assert.equal(rotated.status, 200, rotated.text);
      const { api_key, api_secret } = rotated.json().message as { api_key: string; api_secret: string };
      admin = { ...admin, authorization: `token ${api_key}:${api_secret}` };
      // docs/security.md "Changes apply at once": other processes within one second.
      await new Promise((r) => setTimeout(r, 1_200));
      const answers = await inParallel(8, 1, (i) =>
        call({ method: 'GET', path: '/api/method/fw.auth.get_logged_user', headers: { authorization: i % 2 ? old : admin.authorization } }),
      );
      answers.forEach((res, i) => assert.equal(res.status, i % 2 ? 401 : 200, res.text));
    });

    test('a CSRF token issued by one worker is required and checked by every worker', async () => {
      const login = await call({ method: 'POST', path: '/api/method/login', body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
      const sid = (login.headers['set-cookie'] ?? []).map((c) => /^sid=([^;]+)/.exec(c)?.[1]).find(Boolean);
      const cookie = `sid=${sid}`;
      const issued = await call({ method: 'GET', path: '/api/method/fw.auth.get_csrf_token', headers: { cookie } });
      assert.equal(issued.status, 200, issued.text);
      const token = issued.json().message as string;
      const doctype = 'Cluster Csrf';
      await createDocType(doctype);
      const write = (headers: Record<string, string>) =>
        call({ method: 'POST', path: `/api/resource/${encodeURIComponent(doctype)}`, headers: { cookie, ...headers }, body: { title: 'csrf' } });
      const answers = await inParallel(12, 1, (i) =>
        write([{ 'x-frappe-csrf-token': token }, {}, { 'x-frappe-csrf-token': 'f'.repeat(token.length) }][i % 3]!),
      );
      answers.forEach((res, i) => {
        if (i % 3 === 0) assert.equal(res.status, 200, `${i}: ${res.text}`);
        else {
          assert.equal(res.status, 400, res.text);
          assert.equal(res.json().exc_type, 'CSRFTokenError');
        }
      });
      assert.equal((await listAll(doctype)).length, 4, 'only the writes carrying the token were stored');
    });

    test('SIGTERM to the primary stops every worker gracefully and exits with 0', async () => {
      const workers = serve!.liveWorkerPids();
      const exit = await serve!.stop('SIGTERM', 20_000);
      assert.deepEqual(exit, { code: 0, signal: null });
      for (const pid of workers) assert.ok(processGone(pid), `worker ${pid} is gone`);
      const stopped = serve!.logs().filter((l) => workers.includes(l.pid) && l.msg === 'stopped');
      assert.equal(stopped.length, workers.length, 'each worker closed its site');
    });
  });
}

describe('fw serve without --workers', () => {
  let dir: string;
  let serve: ServeProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-single-'));
    serve = await startServe(['--site', join(dir, 'site')], { workers: 1, env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD } });
  });
  after(async () => {
    await serve?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  test('serves in the one process, answers fw.ready, and exits with 0 on SIGTERM', async () => {
    const res = await httpCall(serve!.baseUrl, { method: 'GET', path: '/api/method/fw.ready' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json(), { message: 'ok' });
    const pid = serve!.child.pid;
    assert.ok(
      serve!.logs().every((l) => l.pid === pid),
      'no other process logged: nothing was forked',
    );
    assert.deepEqual(await serve!.stop('SIGTERM', 20_000), { code: 0, signal: null });
    assert.ok(
      serve!.logs().some((l) => l.msg === 'stopped'),
      'the site was closed',
    );
  });
});
