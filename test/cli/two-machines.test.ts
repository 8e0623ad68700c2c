import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScratchApps } from '../apps/app-site.js';
import { testDialects } from '../helpers/dialects.js';
import { outputOf, spawnBin, stopChild } from '../helpers/fw-bin.js';
import { httpCall, type HttpCall } from '../helpers/http-call.js';
import { connectSocket, type RecordingSocket } from '../helpers/realtime-client.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin, type WireAdmin } from '../helpers/wire-admin.js';
import { runCli } from './run-cli.js';

/*
 * Two machines (docs/deployment.md "Several machines"): two `node bin/fw.js serve` processes,
 * each with a site folder of its own whose site_config.json names the same PostgreSQL database
 * and the same S3 bucket. Whatever one does, the other must see as if they were one.
 */

/** An app with a schedule every two seconds whose runs record the process that ran them. */
const TICK_APP = `
export default {
  name: 'twotick',
  register(api) {
    api.jobs.schedule('*/2 * * * * *', 'twotick.every_two_seconds', async (_args, run) => {
      await run.write((ctx) => api.documents.insert(ctx, 'ToDo', { description: 'tick@' + process.pid }));
    });
  },
};
`;

interface Machine {
  readonly child: ChildProcess;
  readonly base: string;
}

async function startMachine(dir: string): Promise<Machine> {
  const child = spawnBin(['serve', '--site', dir, '--port', '0', '--jobs', '2'], { FW_LOG_LEVEL: 'info', FW_LOG_FORMAT: 'json', FW_SCHEDULER_TICK_MS: '200' });
  const out = outputOf(child);
  const match = await out.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 180_000);
  return { child, base: match[1] };
}

const postgres = testDialects().find((d) => d.name === 'postgres');

describe('two fw processes with folders of their own on one PostgreSQL database and one bucket', {
  skip: postgres ? false : 'PostgreSQL not in FW_TEST_DIALECTS',
}, () => {
  let root: string;
  let db: { url: string; drop(): Promise<void> };
  let s3: S3Server;
  let apps: ScratchApps;
  let one: Machine | undefined;
  let two: Machine | undefined;
  let admin: WireAdmin;
  let socket: RecordingSocket | undefined;

  const on = (m: Machine | undefined, c: HttpCall) => httpCall(m!.base, { ...c, headers: { authorization: admin.authorization, ...c.headers } });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'fw-two-machines-'));
    db = await postgres!.createUrl();
    s3 = await startS3Server();
    apps = new ScratchApps();
    const app = await apps.write(TICK_APP);
    const first = join(root, 'machine-1', 'site');
    const created = await runCli(['new-site', first, '--db', db.url, '--admin-password', ADMIN_PASSWORD]);
    assert.equal(created.code, 0, created.err);
    const configFile = join(first, 'site_config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    // Both machines' config: the same database, encryption key and bucket (docs/deployment.md "Several machines").
    const shared = { ...config, apps: [app], file_storage: s3.fileStorage(), allow_consecutive_login_attempts: 3 };
    await writeFile(configFile, JSON.stringify(shared, null, 2), { mode: 0o600 });
    const second = join(root, 'machine-2', 'site');
    await mkdir(second, { recursive: true });
    await cp(configFile, join(second, 'site_config.json'));
    [one, two] = await Promise.all([startMachine(first), startMachine(second)]);
    admin = await wireAdmin(one.base, ADMIN_PASSWORD);
  });
  after(async () => {
    socket?.close();
    // SIGTERM, which bin/fw.js passes on to the server it started (SIGKILL would orphan that one).
    await Promise.all([one, two].map((m) => (m ? stopChild(m.child, 'SIGTERM', 30_000) : undefined)));
    await db.drop();
    await s3.close();
    await apps.dispose();
    await rm(root, { recursive: true, force: true });
  });

  test('a private file uploaded through one is downloaded through the other, and refused to Guest there', async () => {
    const content = `shared bytes ${'x'.repeat(5000)}`;
    const form = new FormData();
    form.set('is_private', '1');
    form.set('file', new Blob([content]), 'shared.txt');
    const uploaded = await fetch(`${one!.base}/api/method/upload_file`, { method: 'POST', headers: { authorization: admin.authorization }, body: form });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const fileUrl = ((await uploaded.json()) as { message: { file_url: string } }).message.file_url;
    assert.match(fileUrl, /^\/private\/files\//);
    const downloaded = await fetch(`${two!.base}${fileUrl}`, { headers: { authorization: admin.authorization } });
    assert.equal(downloaded.status, 200);
    assert.equal(await downloaded.text(), content);
    assert.equal((await fetch(`${two!.base}${fileUrl}`)).status, 403);
  });

  test('an event published on one reaches a socket on the other', async () => {
    socket = await connectSocket(two!.base, { headers: { authorization: admin.authorization } });
    assert.deepEqual(await socket.ask('doctype_subscribe', 'ToDo'), { ok: true });
    const made = await on(one, { method: 'POST', path: '/api/resource/ToDo', body: { description: 'from machine one' } });
    assert.equal(made.status, 200, made.text);
    const name = (made.json().data as { name: string }).name;
    assert.equal((await socket.next('list_update', (m) => m.name === name, 20_000)).name, name);
  });

  test('a session made on one is valid on the other; a login lockout counts failures on both', async () => {
    const login = await httpCall(one!.base, { method: 'POST', path: '/api/method/login', body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
    const sid = (login.headers['set-cookie'] ?? []).map((c) => /^sid=([^;]+)/.exec(c)?.[1]).find(Boolean);
    const who = await httpCall(two!.base, { method: 'GET', path: '/api/method/frappe.auth.get_logged_user', headers: { cookie: `sid=${sid}` } });
    assert.equal(who.json().message, 'Administrator');

    const user = 'locked@example.com';
    const made = await on(one, { method: 'POST', path: '/api/resource/User', body: { email: user, first_name: 'Lock', new_password: 'a-Good-pass-123' } });
    assert.equal(made.status, 200, made.text);
    const attempt = (m: Machine | undefined, pwd: string) => httpCall(m!.base, { method: 'POST', path: '/api/method/login', body: { usr: user, pwd } });
    // allow_consecutive_login_attempts is 3: two failures on one machine, one on the other.
    for (const m of [one, one, two]) assert.equal((await attempt(m, 'wrong')).status, 401);
    const locked = await attempt(two, 'a-Good-pass-123');
    assert.notEqual(locked.status, 200, 'the right password is refused while locked out, on either machine');
    assert.notEqual((await attempt(one, 'a-Good-pass-123')).status, 200);
  });

  test('a DocType, a System Settings change and a replaced API secret made on one take effect on the other', async () => {
    const doctype = await on(one, {
      method: 'POST',
      path: '/api/resource/DocType',
      body: { name: 'Machine Note', fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }], permissions: [{ role: 'System Manager' }] },
    });
    assert.equal(doctype.status, 200, doctype.text);
    const note = await on(two, { method: 'POST', path: '/api/resource/Machine Note', body: { title: 'made on two' } });
    assert.equal(note.status, 200, note.text);

    // System Settings (max_file_size is in MiB there): set on one, in force on two.
    const limit = () => on(two, { method: 'GET', path: '/api/method/fw.core.api.file.get_max_file_size' });
    const before = (await limit()).json().message;
    const settings = await on(one, { method: 'PUT', path: '/api/resource/System Settings/System Settings', body: { max_file_size: 3 } });
    assert.equal(settings.status, 200, settings.text);
    assert.notEqual(before, 3 * 1024 * 1024);
    assert.equal((await limit()).json().message, 3 * 1024 * 1024);

    // A secret replaced on one stops working on two within the token cache's second.
    // (Through the API: the lockout test above used up this address's login attempts.)
    const old = admin.authorization;
    const keys = await on(one, { method: 'POST', path: '/api/method/fw.core.doctype.user.user.generate_keys', body: { user: 'Administrator' } });
    assert.equal(keys.status, 200, keys.text);
    const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
    admin = { ...admin, authorization: `token ${api_key}:${api_secret}` };
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await httpCall(two!.base, { method: 'GET', path: '/api/method/frappe.auth.get_logged_user', headers: { authorization: old } })).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 401);
    assert.equal((await on(two, { method: 'GET', path: '/api/method/frappe.auth.get_logged_user' })).status, 200);
  });

  test('each scheduled slot runs once across both processes', async () => {
    const completed = async () =>
      (
        await on(one, {
          method: 'GET',
          // Only this app's handler: the built-in ones on the `all` frequency (every fourth minute)
          // log slots of their own, which may fall on the same second (docs/jobs.md "Scheduler").
          path: `/api/resource/Scheduled Job Log?fields=${encodeURIComponent('["slot","status"]')}&filters=${encodeURIComponent(
            '[["scheduled_job_type","=","twotick.every_two_seconds"]]',
          )}&limit_page_length=0`,
        })
      ).json().data as { slot: string; status: string }[];
    const deadline = Date.now() + 90_000;
    let rows = await completed();
    while (Date.now() < deadline && rows.filter((r) => r.status === 'Complete').length < 4) {
      await new Promise((r) => setTimeout(r, 500));
      rows = await completed();
    }
    const slots = rows.map((r) => r.slot);
    assert.ok(slots.length >= 4, `several slots ran: ${JSON.stringify(rows)}`);
    assert.equal(new Set(slots).size, slots.length, `no slot twice: ${JSON.stringify(slots)}`);
    const ticks = await on(one, {
      method: 'GET',
      path: `/api/resource/ToDo?filters=${encodeURIComponent('[["description","like","tick@%"]]')}&limit_page_length=0`,
    });
    const complete = (await completed()).filter((r) => r.status === 'Complete').length;
    assert.ok((ticks.json().data as unknown[]).length >= complete - 1, 'each completed slot ran its handler');
  });
});
