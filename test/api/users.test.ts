import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTH_TABLE, SESSIONS_TABLE } from '../../src/auth/auth-tables.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, login, sessionFor, sidOf, tokenFor, whoIs } from '../helpers/user-sessions.js';

const PASSWORD = 'user-Secret-77';

/** A unique email per call, so tests share one site without clashing. */
function email(tag: string): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.com`;
}

const cookie = (sid: string) => ({ cookie: `sid=${sid}` });

for (const dialect of testDialects()) {
  describe(`users through the API (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('the Administrator creates a user whose name is the lower-cased email, and who can log in', async () => {
      const mixed = `Jane.${randomBytes(3).toString('hex')}@Example.COM`;
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/User',
        body: { email: mixed, first_name: 'Jane', last_name: 'Doe', new_password: PASSWORD, roles: [{ role: 'System Manager' }], user_type: 'System User' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const doc = res.json().data as Record<string, unknown>;
      assert.equal(doc.name, mixed.toLowerCase());
      assert.equal(doc.email, mixed.toLowerCase());
      assert.equal(doc.full_name, 'Jane Doe');
      assert.equal(doc.user_type, 'System User');
      assert.deepEqual(
        (doc.roles as Array<{ role: string }>).map((r) => r.role),
        ['System Manager'],
      );
      assert.ok(!('new_password' in doc), 'the password never comes back');

      const ok = await login(t.app, mixed, PASSWORD);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { message: 'Logged In', home_page: '/app', full_name: 'Jane Doe' });
      assert.equal(await whoIs(t.app, cookie(sidOf(ok) as string)), mixed.toLowerCase());
    });

    test('a v2 insert names the user after the email whatever name the client sends', async () => {
      const address = email('v2');
      const res = await t.request({
        method: 'POST',
        url: '/api/v2/document/User',
        body: { name: 'someone-else', email: address, first_name: 'Vee', new_password: PASSWORD },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json().data as Record<string, unknown>).name, address);
      assert.equal((res.json().data as Record<string, unknown>).new_password, null);
    });

    test('a Website User logs in with "No App"', async () => {
      const address = email('web');
      await createUser(t, { email: address, password: PASSWORD, userType: 'Website User' });
      const res = await login(t.app, address, PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().message, 'No App');
    });

    test('the new password is stored only as a hash: neither the document nor a reversible secret holds it', async () => {
      const address = email('hash');
      await createUser(t, { email: address, password: PASSWORD });
      const read = await t.request({ method: 'GET', url: `/api/resource/User/${address}` });
      assert.equal(read.statusCode, 200);
      assert.ok(!read.body.includes(PASSWORD));
      assert.ok(!('new_password' in (read.json().data as object)));
      const b = t.site.db.dialect.builder;
      const stored = await t.site.db.read(async (q) => ({
        user: await q.all<{ new_password: unknown }>(b.selectFrom('tabUser').select('new_password').where('name', '=', address).compile()),
        auth: await q.all<{ fieldname: string; password: string; encrypted: number }>(
          b.selectFrom(AUTH_TABLE).select(['fieldname', 'password', 'encrypted']).where('name', '=', address).compile(),
        ),
      }));
      assert.equal(stored.user[0].new_password, null);
      assert.deepEqual(
        stored.auth.map((r) => [r.fieldname, Number(r.encrypted)]),
        [['password', 0]],
      );
      assert.match(stored.auth[0].password, /^scrypt\$/);
    });

    test('a password over 512 characters is a 417 on create and on change, and changes nothing', async () => {
      const address = email('long');
      const created = await t.request({
        method: 'POST',
        url: '/api/resource/User',
        body: { email: address, first_name: 'Long', new_password: 'x'.repeat(513) },
      });
      assertV1Error(created, 417, 'ValidationError');
      assert.equal((await t.request({ method: 'GET', url: `/api/resource/User/${address}` })).statusCode, 404);

      await createUser(t, { email: address, password: PASSWORD });
      const changed = await t.request({ method: 'PUT', url: `/api/resource/User/${address}`, body: { new_password: 'y'.repeat(600) } });
      assertV1Error(changed, 417, 'ValidationError');
      assert.equal((await login(t.app, address, PASSWORD)).statusCode, 200, 'the old password still works');
    });

    test('a password of exactly 512 characters is accepted', async () => {
      const address = email('max');
      const long = 'z'.repeat(512);
      await createUser(t, { email: address, password: long });
      assert.equal((await login(t.app, address, long)).statusCode, 200);
    });

    for (const builtIn of ['Administrator', 'Guest']) {
      test(`${builtIn} cannot be deleted or disabled (417) and stays as it was`, async () => {
        assertV1Error(await t.request({ method: 'DELETE', url: `/api/resource/User/${builtIn}` }), 417, 'ValidationError');
        assertV1Error(await t.request({ method: 'PUT', url: `/api/resource/User/${builtIn}`, body: { enabled: 0 } }), 417, 'ValidationError');
        const read = await t.request({ method: 'GET', url: `/api/resource/User/${builtIn}` });
        assert.equal(read.statusCode, 200);
        assert.equal((read.json().data as Record<string, unknown>).enabled, 1);
      });
    }

    test('Guest cannot be given a password', async () => {
      const res = await t.request({ method: 'PUT', url: '/api/resource/User/Guest', body: { new_password: PASSWORD } });
      assertV1Error(res, 417, 'ValidationError');
      assert.equal((await login(t.app, 'Guest', PASSWORD)).statusCode, 401);
    });

    test('a custom role can be created and given to a user; an unknown role is refused', async () => {
      const role = `Auditor ${randomBytes(3).toString('hex')}`;
      const made = await t.request({ method: 'POST', url: '/api/resource/Role', body: { role_name: role } });
      assert.equal(made.statusCode, 200, made.body);
      assert.equal((made.json().data as Record<string, unknown>).name, role);

      const doc = await createUser(t, { email: email('role'), password: PASSWORD, roles: [role] });
      assert.deepEqual(
        (doc.roles as Array<{ role: string }>).map((r) => r.role),
        [role],
      );

      const refused = await t.request({
        method: 'POST',
        url: '/api/resource/User',
        body: { email: email('norole'), first_name: 'No', roles: [{ role: 'No Such Role' }] },
      });
      assertV1Error(refused, 417, 'LinkValidationError');
    });

    test('a deleted user cannot log in and their sessions end', async () => {
      const address = email('gone');
      await createUser(t, { email: address, password: PASSWORD });
      const sid = await sessionFor(t.app, address, PASSWORD);
      assert.equal((await t.request({ method: 'DELETE', url: `/api/resource/User/${address}` })).statusCode, 202);
      assert.equal(await whoIs(t.app, cookie(sid)), undefined);
      assertV1Error(await login(t.app, address, PASSWORD), 401, 'AuthenticationError');
    });
  });

  describe(`password changes and disabling end sessions (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test("a password change keeps the session that made it and ends the user's other sessions", async () => {
      const address = email('self');
      await createUser(t, { email: address, password: PASSWORD, roles: ['System Manager'] });
      const mine = await sessionFor(t.app, address, PASSWORD);
      const other = await sessionFor(t.app, address, PASSWORD);
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/resource/User/${address}`,
        payload: { new_password: 'changed-Pass-1', old_password: PASSWORD },
        headers: cookie(mine),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await whoIs(t.app, cookie(mine)), address, 'the session that changed it lives on');
      assert.equal(await whoIs(t.app, cookie(other)), undefined, 'the other session has ended');
      assertV1Error(await login(t.app, address, PASSWORD), 401, 'AuthenticationError');
      assert.equal((await login(t.app, address, 'changed-Pass-1')).statusCode, 200);
    });

    test('a password change by the Administrator ends every session of the user, and API keys keep working', async () => {
      const address = email('reset');
      await createUser(t, { email: address, password: PASSWORD });
      const token = await tokenFor(t, address);
      const sessions = [await sessionFor(t.app, address, PASSWORD), await sessionFor(t.app, address, PASSWORD)];
      const res = await t.request({ method: 'PUT', url: `/api/resource/User/${address}`, body: { new_password: 'reset-Pass-2' } });
      assert.equal(res.statusCode, 200, res.body);
      for (const sid of sessions) assert.equal(await whoIs(t.app, cookie(sid)), undefined);
      assert.equal(await whoIs(t.app, { authorization: token }), address, 'keys stay valid until regenerated');
    });

    test('saving a user without a new password leaves their sessions alone', async () => {
      const address = email('keep');
      await createUser(t, { email: address, password: PASSWORD });
      const sid = await sessionFor(t.app, address, PASSWORD);
      const res = await t.request({ method: 'PUT', url: `/api/resource/User/${address}`, body: { last_name: 'Renamed', new_password: '********' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await whoIs(t.app, cookie(sid)), address);
      assert.equal((await login(t.app, address, PASSWORD)).statusCode, 200, 'a masked value is not a new password');
    });

    test('disabling a user ends their sessions and refuses their keys; enabling makes the same keys work again', async () => {
      const address = email('off');
      await createUser(t, { email: address, password: PASSWORD });
      const token = await tokenFor(t, address);
      const sid = await sessionFor(t.app, address, PASSWORD);
      assert.equal(await whoIs(t.app, { authorization: token }), address);

      const off = await t.request({ method: 'PUT', url: `/api/resource/User/${address}`, body: { enabled: 0 } });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(await whoIs(t.app, cookie(sid)), undefined, 'the session has ended');
      const refused = await t.app.inject({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers: { authorization: token } });
      assertV1Error(refused, 401, 'AuthenticationError');
      const denied = await login(t.app, address, PASSWORD);
      const { body } = assertV1Error(denied, 401, 'AuthenticationError');
      assert.equal(body.message, 'User disabled or missing');

      const on = await t.request({ method: 'PUT', url: `/api/resource/User/${address}`, body: { enabled: 1 } });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal(await whoIs(t.app, { authorization: token }), address, 'the same key works again');
      assert.equal(await whoIs(t.app, cookie(sid)), undefined, 'ended sessions stay ended');
      assert.equal((await login(t.app, address, PASSWORD)).statusCode, 200);
    });
  });

  describe(`deny_multiple_sessions (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('off by default: a second login leaves the first session alive', async () => {
      const address = email('multi');
      await createUser(t, { email: address, password: PASSWORD });
      const first = await sessionFor(t.app, address, PASSWORD);
      await sessionFor(t.app, address, PASSWORD);
      assert.equal(await whoIs(t.app, cookie(first)), address);
    });

    test("on: a login ends the user's other sessions and no one else's", async () => {
      const address = email('single');
      const bystander = email('bystander');
      await createUser(t, { email: address, password: PASSWORD });
      await createUser(t, { email: bystander, password: PASSWORD });
      const view = await reopenWithConfig(t, { deny_multiple_sessions: true });
      try {
        const theirs = await sessionFor(view.app, bystander, PASSWORD);
        const first = await sessionFor(view.app, address, PASSWORD);
        const second = await sessionFor(view.app, address, PASSWORD);
        assert.equal(await whoIs(view.app, cookie(first)), undefined);
        assert.equal(await whoIs(view.app, cookie(second)), address);
        assert.equal(await whoIs(view.app, cookie(theirs)), bystander);
      } finally {
        await view.close();
      }
    });
  });

  describe(`bad credentials are answered, never a 500 (${dialect.name})`, () => {
    let t: TestSite;
    let address: string;
    let token: string;
    before(async () => {
      t = await startTestSite(dialect);
      address = email('abuse');
      await createUser(t, { email: address, password: PASSWORD });
      token = await tokenFor(t, address);
    });
    after(() => t.close());

    const loginCases: ReadonlyArray<{ name: string; usr: () => string; pwd: string; message: string }> = [
      { name: 'a wrong password', usr: () => address, pwd: 'wrong-password', message: 'Invalid login credentials' },
      { name: 'an unknown user', usr: () => 'nobody@example.com', pwd: PASSWORD, message: 'Invalid login credentials' },
      { name: 'a password over 512 characters', usr: () => address, pwd: 'p'.repeat(10_000), message: 'Password size exceeded the maximum allowed size' },
    ];
    for (const c of loginCases) {
      test(`${c.name} at login is a 401 "${c.message}"`, async () => {
        const { body } = assertV1Error(await login(t.app, c.usr(), c.pwd), 401, 'AuthenticationError');
        assert.equal(body.message, c.message);
      });
    }

    const guestSids: ReadonlyArray<{ name: string; sid: (real: string) => string }> = [
      { name: 'a forged sid', sid: () => randomBytes(28).toString('hex') },
      { name: 'a tampered sid', sid: (real) => `${real.slice(0, -1)}${real.endsWith('0') ? '1' : '0'}` },
      { name: 'a sid of the wrong shape', sid: () => "x' or '1'='1" },
      { name: 'an overlong sid', sid: (real) => real.repeat(50) },
    ];
    for (const c of guestSids) {
      test(`${c.name} makes a Guest request (403 on a resource), not an error`, async () => {
        const real = await sessionFor(t.app, address, PASSWORD);
        const res = await t.app.inject({ method: 'GET', url: '/api/resource/User', headers: cookie(c.sid(real)) });
        assertV1Error(res, 403, 'PermissionError');
        assert.equal(await whoIs(t.app, cookie(real)), address, 'the real session is untouched');
      });
    }

    test('an expired session makes a Guest request', async () => {
      const sid = await sessionFor(t.app, address, PASSWORD);
      await t.site.db.transaction((q) =>
        q.run(t.site.db.dialect.builder.updateTable(SESSIONS_TABLE).set({ expires_at: 1, last_updated: 1 }).where('sid', '=', sid).compile()),
      );
      assert.equal(await whoIs(t.app, cookie(sid)), undefined);
      assertV1Error(await t.app.inject({ method: 'GET', url: '/api/resource/User', headers: cookie(sid) }), 403, 'PermissionError');
    });

    const headerCases: ReadonlyArray<{ name: string; header: () => string; status: number; excType: string }> = [
      { name: 'a wrong secret', header: () => `${token.split(':')[0]}:${'0'.repeat(32)}`, status: 401, excType: 'AuthenticationError' },
      { name: 'an unknown key', header: () => `token ${'f'.repeat(15)}:${token.split(':')[1]}`, status: 401, excType: 'AuthenticationError' },
      { name: 'a token without a colon', header: () => 'token abcdef', status: 400, excType: 'InvalidAuthorizationHeader' },
      { name: 'Basic with bad base64', header: () => 'Basic !!!not-base64!!!', status: 400, excType: 'InvalidAuthorizationToken' },
      { name: 'an unknown scheme', header: () => 'Bearer abc', status: 401, excType: 'AuthenticationError' },
      { name: 'an empty key and secret', header: () => 'token :', status: 401, excType: 'AuthenticationError' },
      { name: 'a huge token', header: () => `token ${'k'.repeat(5000)}:${'s'.repeat(5000)}`, status: 401, excType: 'AuthenticationError' },
    ];
    for (const c of headerCases) {
      test(`${c.name} in the Authorization header is a ${c.status} ${c.excType}`, async () => {
        const res = await t.app.inject({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers: { authorization: c.header() } });
        assertV1Error(res, c.status, c.excType);
      });
    }

    test('the right token still works after all of that', async () => {
      assert.equal(await whoIs(t.app, { authorization: token }), address);
    });
  });
}
