import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { httpCall, type HttpAnswer, type HttpCall } from '../helpers/http-call.js';
import { connectSocket, refusalOf, type RecordingSocket } from '../helpers/realtime-client.js';
import { openEventStream, streamOf } from '../helpers/event-stream.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { runCli } from './run-cli.js';

// `fw serve --sites <dir>`: two sites in one process, told apart by Host (docs/deployment.md
// "Several sites in one process"). Each site's session, token and socket stay its own.

const A = 'a.localhost';
const B = 'b.localhost';
const IDLE_SECONDS = 2;

/** Logs in on `host` and makes an API key pair there. */
async function loginOn(base: string, host: string): Promise<{ cookie: string; authorization: string }> {
  const login = await httpCall(base, { method: 'POST', path: '/api/method/login', headers: { host }, body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
  assert.equal(login.status, 200, login.text);
  const sid = (login.headers['set-cookie'] ?? []).map((c) => /^sid=([^;]+)/.exec(c)?.[1]).find(Boolean);
  assert.ok(sid);
  const cookie = `sid=${sid}`;
  const keys = await httpCall(base, {
    method: 'POST',
    path: '/api/method/fw.core.doctype.user.user.generate_keys',
    headers: { host, cookie },
    body: { user: 'Administrator' },
  });
  assert.equal(keys.status, 200, keys.text);
  const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
  return { cookie, authorization: `token ${api_key}:${api_secret}` };
}

for (const dialect of testDialects()) {
  describe(`fw serve --sites with two sites (${dialect.name})`, () => {
    let dir: string;
    const drops: Array<() => Promise<void>> = [];
    let serve: ServeProcess | undefined;
    const creds: Record<string, { cookie: string; authorization: string }> = {};
    const sockets: RecordingSocket[] = [];

    const call = (c: HttpCall): Promise<HttpAnswer> => httpCall(serve!.baseUrl, c);
    const whoAmI = (headers: Record<string, string>) => call({ method: 'GET', path: '/api/method/frappe.auth.get_logged_user', headers });
    const newSite = async (name: string, extraConfig: Record<string, unknown> = {}) => {
      let dbArgs: string[] = [];
      if (dialect.name === 'postgres') {
        const db = await dialect.createUrl();
        drops.push(db.drop);
        dbArgs = ['--db', db.url];
      }
      const run = await runCli(['new-site', join(dir, name), ...dbArgs, '--admin-password', ADMIN_PASSWORD]);
      assert.equal(run.code, 0, run.err);
      const file = join(dir, name, 'site_config.json');
      const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      await writeFile(file, JSON.stringify({ ...config, ...extraConfig }));
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-sites-'));
      await newSite(A);
      // Only b believes X-Frappe-Site-Name, as a site behind the reference's proxy set-up would.
      await newSite(B, { trust_site_header: true });
      serve = await startServe(['--sites', dir, '--default-site', A, '--site-idle', String(IDLE_SECONDS), '--jobs', '0'], {
        workers: 1,
        readyTimeoutMs: 120_000,
      });
      creds[A] = await loginOn(serve.baseUrl, `${A}:8000`);
      creds[B] = await loginOn(serve.baseUrl, B);
    });
    after(async () => {
      for (const s of sockets) s.close();
      await serve?.kill();
      for (const drop of drops) await drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('each site answers its own host, with its own data', async () => {
      const made = await call({
        method: 'POST',
        path: '/api/resource/ToDo',
        headers: { host: A, authorization: creds[A].authorization },
        body: { description: 'only on a' },
      });
      assert.equal(made.status, 200, made.text);
      const name = String((made.json().data as { name: string }).name);
      const onA = await call({ method: 'GET', path: `/api/resource/ToDo/${name}`, headers: { host: A, authorization: creds[A].authorization } });
      assert.equal(onA.status, 200);
      const onB = await call({ method: 'GET', path: '/api/resource/ToDo?fields=["description"]', headers: { host: B, authorization: creds[B].authorization } });
      assert.equal(onB.status, 200, onB.text);
      assert.deepEqual(onB.json().data, []);
    });

    test('a session cookie and an API token of one site are refused by the other', async () => {
      assert.equal((await whoAmI({ host: A, cookie: creds[A].cookie })).json().message, 'Administrator');
      const cookieOnB = await whoAmI({ host: B, cookie: creds[A].cookie });
      assert.equal(cookieOnB.status, 403, cookieOnB.text);
      const tokenOnB = await whoAmI({ host: B, authorization: creds[A].authorization });
      assert.equal(tokenOnB.status, 401, tokenOnB.text);
      assert.equal(tokenOnB.json().exc_type, 'AuthenticationError');
      const tokenOnA = await whoAmI({ host: A, authorization: creds[B].authorization });
      assert.equal(tokenOnA.status, 401);
    });

    test('an unknown host is a 404 in the error envelope; the default site answers only local hosts', async () => {
      const unknown = await whoAmI({ host: 'nope.localhost' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json().exc_type, 'DoesNotExistError');
      for (const host of ['..', '../b.localhost', 'b.localhost%2f..', 'nope.example.com']) {
        const res = await whoAmI({ host, authorization: creds[B].authorization });
        assert.equal(res.status, 404, `${host}: ${res.text}`);
      }
      // 127.0.0.1 names no site folder: the default site (a) answers it.
      for (const host of ['127.0.0.1', '127.0.0.1:8000', 'localhost:8000', '[::1]:8000']) {
        assert.equal((await whoAmI({ host, authorization: creds[A].authorization })).json().message, 'Administrator', host);
      }
    });

    test('X-Frappe-Site-Name chooses the site only when that site trusts the header', async () => {
      // b trusts it: a request to a's host naming b is b's.
      const toB = await whoAmI({ host: A, 'x-frappe-site-name': B, authorization: creds[B].authorization });
      assert.equal(toB.status, 200, toB.text);
      assert.equal((await whoAmI({ host: A, 'x-frappe-site-name': B, authorization: creds[A].authorization })).status, 401);
      // a does not: naming a from b's host changes nothing.
      assert.equal((await whoAmI({ host: B, 'x-frappe-site-name': A, authorization: creds[B].authorization })).status, 200);
      assert.equal((await whoAmI({ host: B, 'x-frappe-site-name': A, authorization: creds[A].authorization })).status, 401);
      // Nor can the header reach outside the folder.
      assert.equal((await whoAmI({ host: 'nope.localhost', 'x-frappe-site-name': '../b.localhost' })).status, 404);
    });

    test("a socket and an event stream of one site never admit the other's credentials nor hear its events", async () => {
      const base = serve!.baseUrl;
      const refused = await refusalOf(base, { namespace: `/${B}`, headers: { host: B, authorization: creds[A].authorization } });
      assert.equal(refused, 'Invalid credentials');
      const wrongNamespace = await refusalOf(base, { namespace: `/${A}`, headers: { host: B, authorization: creds[B].authorization } });
      assert.equal(wrongNamespace, 'Invalid namespace');
      // a's session cookie means nothing to b: the stream opens for Guest, who may not follow ToDo.
      const stream = streamOf(await openEventStream(`${base}/api/v2/realtime?doctype=ToDo`, { host: B, cookie: creds[A].cookie }));
      const ready = await stream.next('ready');
      stream.close();
      assert.equal(ready.data.user, 'Guest');
      assert.deepEqual(
        ready.data.rooms.filter((r: string) => r.includes('ToDo')),
        [],
      );

      const onA = await connectSocket(base, { namespace: `/${A}`, headers: { host: A, authorization: creds[A].authorization } });
      const onB = await connectSocket(base, { namespace: `/${B}`, headers: { host: B, authorization: creds[B].authorization } });
      sockets.push(onA, onB);
      for (const s of [onA, onB]) assert.deepEqual(await s.ask('doctype_subscribe', 'ToDo'), { ok: true });
      const insert = async (host: string, description: string) => {
        const res = await call({
          method: 'POST',
          path: '/api/resource/ToDo',
          headers: { host, authorization: creds[host].authorization },
          body: { description },
        });
        assert.equal(res.status, 200, res.text);
        return String((res.json().data as { name: string }).name);
      };
      const fromA = await insert(A, 'event on a');
      await onA.next('list_update', (m) => m.name === fromA);
      const fromB = await insert(B, 'event on b');
      await onB.next('list_update', (m) => m.name === fromB);
      assert.ok(!onB.received.some((r) => r.event === 'list_update' && (r.args[0] as { description?: string }).description === 'event on a'));
      assert.equal(onA.received.filter((r) => r.event === 'list_update').length, 1, `a's socket heard only a's insert: ${JSON.stringify(onA.received)}`);
      onA.close();
      onB.close();
    });

    test('a site unused beyond the idle limit is closed and opens again on the next request', async () => {
      const closedAt = await serve!.waitForLog((l) => l.msg === `site ${B} closed`, 20_000);
      assert.ok(closedAt);
      const opened = serve!.logs().filter((l) => l.msg === `site ${B} opened`).length;
      assert.equal((await whoAmI({ host: B, authorization: creds[B].authorization })).json().message, 'Administrator');
      // The server's log line may reach this process just after the answer: wait for it, briefly.
      const openedAgain = () => serve!.logs().filter((l) => l.msg === `site ${B} opened`).length;
      for (let waited = 0; openedAgain() < opened + 1 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      assert.equal(openedAgain(), opened + 1);
      // Requests that arrive together while it opens share one opening.
      await serve!.waitForLog((l) => l.msg === `site ${A} closed`, 20_000);
      const before = serve!.logs().filter((l) => l.msg === `site ${A} opened`).length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => whoAmI({ host: A, authorization: creds[A].authorization })));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200],
      );
      const openedA = () => serve!.logs().filter((l) => l.msg === `site ${A} opened`).length;
      for (let waited = 0; openedA() < before + 1 && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      // A second opening would log within the same moment: give it the chance to show before counting.
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(openedA(), before + 1);
    });

    test('fw new-site adds a site served at once; fw drop-site asks first, then removes it', async () => {
      const C = 'c.localhost';
      await newSite(C);
      const creds = await loginOn(serve!.baseUrl, C);
      assert.equal((await whoAmI({ host: C, authorization: creds.authorization })).status, 200);

      const unconfirmed = await runCli(['drop-site', join(dir, C)]);
      assert.notEqual(unconfirmed.code, 0);
      assert.match(unconfirmed.err, /--yes/);
      await stat(join(dir, C, 'site_config.json'));

      const dropped = await runCli(['drop-site', join(dir, C), '--yes']);
      assert.equal(dropped.code, 0, dropped.err);
      await assert.rejects(stat(join(dir, C)));
      // Once the server let the idle site go, its host names nothing.
      await serve!.waitForLog((l) => l.msg === `site ${C} closed`, 20_000);
      assert.equal((await whoAmI({ host: C, authorization: creds.authorization })).status, 404);
    });
  });
}

describe('fw serve --sites refuses what it cannot honour', () => {
  test('--workers, --db, --site and --socketio-port beside --sites are usage errors that start nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-sites-refused-'));
    try {
      for (const extra of [
        ['--workers', '2'],
        ['--db', 'sqlite:x.db'],
        ['--site', dir],
        ['--site-idle', '-1'],
      ]) {
        const run = await runCli(['serve', '--sites', dir, '--port', '0', ...extra]);
        assert.equal(run.code, 2, `${extra.join(' ')}: ${run.out}${run.err}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
