import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { openSite } from '../../src/site/open-site.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, dataOf, resourceUrl, type Json } from '../helpers/document-api.js';
import { postForm, uploadFile } from '../helpers/file-api.js';
import { uploadForm } from '../helpers/multipart-form.js';
import { actAs, createUser as createActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, freshIp, login, sidOf, whoIs } from '../helpers/user-sessions.js';

const SETTINGS_URL = resourceUrl('System Settings', 'System Settings');
const ORIGIN = 'https://app.example.com';
const PASSWORD = 'settings-Secret-7';
const MIB = 1024 * 1024;

function email(tag: string): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.com`;
}

async function setSettings(t: TestSite, values: Json): Promise<Json> {
  return dataOf(await t.request({ method: 'PUT', url: SETTINGS_URL, body: values }));
}

/** A request that runs a unit of work (so its process checks the metadata version), sent with an Origin. */
function fromOrigin(app: FastifyInstance, auth: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers: { origin: ORIGIN, authorization: auth } });
}

function preflight(app: FastifyInstance): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'OPTIONS', url: '/api/resource/ToDo', headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' } });
}

async function failLogins(app: FastifyInstance, usr: string, ip: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) assertError(await login(app, usr, 'wrong-password', { ip }), 401, 'AuthenticationError');
}

/** `YYYY-MM-DD HH` of now in `timeZone`. */
function hourIn(timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date())
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}`;
}

for (const dialect of testDialects()) {
  describe(`System Settings (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('only System Managers may read or change System Settings', async () => {
      const doc = dataOf(await t.request({ method: 'GET', url: SETTINGS_URL }));
      assert.equal(doc.name, 'System Settings');
      const plain = await createActingUser(t, email('plain'));
      const manager = await createActingUser(t, email('manager'), { roles: ['System Manager'] });
      assertError(await actAs(t, plain, { method: 'GET', url: SETTINGS_URL }), 403, 'PermissionError');
      assertError(await actAs(t, plain, { method: 'PUT', url: SETTINGS_URL, body: { allow_cors: '*' } }), 403, 'PermissionError');
      assertError(await actAs(t, undefined, { method: 'GET', url: SETTINGS_URL }), 403, 'PermissionError');
      assert.equal((await actAs(t, manager, { method: 'GET', url: SETTINGS_URL })).statusCode, 200);
    });

    test('values the settings function could not use are refused with 417', async () => {
      for (const body of [{ time_zone: 'Mars/Olympus_Mons' }, { session_expiry: '7 days' }, { allow_cors: 'https://ok.example.com\nnot-an-origin' }]) {
        assertError(await t.request({ method: 'PUT', url: SETTINGS_URL, body }), 417, 'ValidationError');
      }
      assertError(await t.request({ method: 'PUT', url: SETTINGS_URL, body: { max_file_size: -1 } }), 417, 'NonNegativeError');
    });

    test('allow_consecutive_login_attempts 2 makes the third failed login 429', async () => {
      await setSettings(t, { allow_consecutive_login_attempts: 2 });
      try {
        const user = email('throttled');
        await createUser(t, { email: user, password: PASSWORD });
        const ip = freshIp();
        await failLogins(t.app, user, ip, 2);
        assertError(await login(t.app, user, PASSWORD, { ip }), 429, 'SecurityException');
      } finally {
        await setSettings(t, { allow_consecutive_login_attempts: 10 });
      }
    });

    test('allow_cors lets listed origins call with credentials; cleared, site_config.json applies again', async () => {
      assert.equal((await fromOrigin(t.app, t.adminAuth)).headers['access-control-allow-origin'], undefined);
      await setSettings(t, { allow_cors: `${ORIGIN}\nhttps://other.example.com` });
      try {
        const res = await fromOrigin(t.app, t.adminAuth);
        assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
        assert.equal(res.headers['access-control-allow-credentials'], 'true');
        const pre = await preflight(t.app);
        assert.equal(pre.statusCode, 200);
        assert.equal(pre.headers['access-control-allow-origin'], ORIGIN);
        assert.equal(pre.headers['access-control-allow-methods'], 'PUT');
      } finally {
        await setSettings(t, { allow_cors: '' });
      }
      assert.equal((await fromOrigin(t.app, t.adminAuth)).headers['access-control-allow-origin'], undefined);
      assert.equal((await preflight(t.app)).headers['access-control-allow-origin'], undefined);
    });

    test('max_file_size (MB) limits uploads with 413; 0 falls back to site_config.json', async () => {
      const big = Buffer.alloc(Math.round(1.5 * MIB), 7);
      await setSettings(t, { max_file_size: 1 });
      try {
        assertError(await uploadFile(t, 'big.bin', big), 413, 'MaxFileSizeReachedError');
        assert.equal((await uploadFile(t, 'small.txt', 'small enough')).statusCode, 200);
      } finally {
        await setSettings(t, { max_file_size: 0 });
      }
      const res = await uploadFile(t, 'big.bin', big);
      assert.equal(res.statusCode, 200, res.body);
    });

    test('session_expiry (hh:mm) sets the session cookie Max-Age', async () => {
      const user = email('expiry');
      await createUser(t, { email: user, password: PASSWORD });
      await setSettings(t, { session_expiry: '2:30' });
      try {
        const res = await login(t.app, user, PASSWORD);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.cookies.find((c) => c.name === 'sid')?.maxAge, 9000);
      } finally {
        await setSettings(t, { session_expiry: '' });
      }
      const res = await login(t.app, user, PASSWORD);
      assert.equal(res.cookies.find((c) => c.name === 'sid')?.maxAge, 7 * 24 * 3600);
    });

    test("deny_multiple_sessions makes a login end the user's other sessions", async () => {
      const user = email('single-session');
      await createUser(t, { email: user, password: PASSWORD });
      await setSettings(t, { deny_multiple_sessions: 1 });
      try {
        const first = sidOf(await login(t.app, user, PASSWORD));
        const second = sidOf(await login(t.app, user, PASSWORD));
        assert.ok(first && second);
        assert.equal(await whoIs(t.app, { cookie: `sid=${second}` }), user);
        assert.equal(await whoIs(t.app, { cookie: `sid=${first}` }), undefined, 'the earlier session has ended');
      } finally {
        await setSettings(t, { deny_multiple_sessions: 0 });
      }
    });

    test('time_zone sets the zone of the timestamps fw writes', async () => {
      const zone = 'Pacific/Kiritimati';
      await setSettings(t, { time_zone: zone });
      try {
        const hours = [hourIn(zone)];
        const todo = dataOf(await t.request({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'zoned' } }));
        hours.push(hourIn(zone));
        assert.ok(hours.includes(String(todo.creation).slice(0, 13)), `${String(todo.creation)} is in ${zone} (${hours.join(', ')})`);
      } finally {
        await setSettings(t, { time_zone: '' });
      }
    });

    test('values survive reopening the site', async () => {
      await setSettings(t, { allow_cors: ORIGIN, session_expiry: '48:00' });
      const site = await openSite(t.site.paths.root);
      const app = await buildApp(site);
      try {
        const doc = dataOf(await app.inject({ method: 'GET', url: SETTINGS_URL, headers: { authorization: t.adminAuth } }));
        assert.equal(doc.allow_cors, ORIGIN);
        assert.equal(doc.session_expiry, '48:00');
        assert.equal((await fromOrigin(app, t.adminAuth)).headers['access-control-allow-origin'], ORIGIN);
      } finally {
        await app.close();
        await site.close();
        await setSettings(t, { allow_cors: '', session_expiry: '' });
      }
    });

    test('another process serving the site sees a change on its next request', async () => {
      const site = await openSite(t.site.paths.root);
      const other = await buildApp(site);
      try {
        assert.equal((await fromOrigin(other, t.adminAuth)).headers['access-control-allow-origin'], undefined);
        await setSettings(t, { allow_cors: ORIGIN, allow_consecutive_login_attempts: 2 });
        assert.equal((await preflight(other)).headers['access-control-allow-origin'], ORIGIN, 'a preflight checks for itself');
        assert.equal((await fromOrigin(other, t.adminAuth)).headers['access-control-allow-origin'], ORIGIN);

        const user = email('other-process');
        await createUser(t, { email: user, password: PASSWORD });
        const ip = freshIp();
        await failLogins(other, user, ip, 2);
        assertError(await login(other, user, PASSWORD, { ip }), 429, 'SecurityException');

        await setSettings(t, { max_file_size: 1 });
        assertError(
          await postForm(other, uploadForm('big.bin', Buffer.alloc(Math.round(1.5 * MIB), 1)), { authorization: t.adminAuth }),
          413,
          'MaxFileSizeReachedError',
        );
      } finally {
        await other.close();
        await site.close();
        await setSettings(t, { allow_cors: '', allow_consecutive_login_attempts: 10, max_file_size: 0 });
      }
    });
  });
}
