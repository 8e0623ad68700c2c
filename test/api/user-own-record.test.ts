import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, dataOf, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';

// Every user's own User record is shared with them (reference User.share_with_self): they read and
// edit their profile without a role on User, while roles and user type (permlevel 1) stay out of reach.
for (const dialect of testDialects()) {
  describe(`a user's own User record (${dialect.name})`, () => {
    let t: TestSite;
    let plain: ActingUser;
    let website: ActingUser;
    let other: ActingUser;
    const stamp = Date.now();

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Own Record Role');
      plain = await createUser(t, `own-plain-${stamp}@example.com`, { roles: ['Own Record Role'] });
      website = await createUser(t, `own-web-${stamp}@example.com`, { userType: 'Website User' });
      other = await createUser(t, `own-other-${stamp}@example.com`);
    });
    after(() => t.close());

    test('a user reads their own record, without the permlevel 1 fields, and lists only it', async () => {
      for (const user of [plain, website]) {
        const own = dataOf(await actAs(t, user, { method: 'GET', url: resourceUrl('User', user.name) }));
        assert.equal(own.name, user.name);
        assert.equal(own.roles, undefined, 'roles are permlevel 1');
        assert.equal(own.user_type, undefined, 'user_type is permlevel 1');
        const listed = dataOf(await actAs(t, user, { method: 'GET', url: resourceUrl('User') + query({ limit_page_length: 0 }) }));
        assert.deepEqual(
          listed.map((r: Json) => r.name),
          [user.name],
        );
      }
    });

    test("another user's record stays closed: 403 on read, write and delete", async () => {
      const stored = await readDoc(t, 'User', other.name);
      assertError(await actAs(t, plain, { method: 'GET', url: resourceUrl('User', other.name) }), 403, 'PermissionError');
      assertError(await actAs(t, plain, { method: 'PUT', url: resourceUrl('User', other.name), body: { first_name: 'X' } }), 403, 'PermissionError');
      assertError(await actAs(t, plain, { method: 'DELETE', url: resourceUrl('User', other.name) }), 403, 'PermissionError');
      assert.deepEqual(await readDoc(t, 'User', other.name), stored);
    });

    test('a user edits their own names; roles and user type they send are kept as they were', async () => {
      const before = await readDoc(t, 'User', plain.name);
      const body = { first_name: 'Ada', last_name: 'Lovelace', roles: [{ role: 'System Manager' }], user_type: 'Website User' };
      const saved = dataOf(await actAs(t, plain, { method: 'PUT', url: resourceUrl('User', plain.name), body }));
      assert.equal(saved.full_name, 'Ada Lovelace');
      const after = await readDoc(t, 'User', plain.name);
      assert.deepEqual(
        after.roles.map((r: Json) => r.role),
        before.roles.map((r: Json) => r.role),
      );
      assert.equal(after.user_type, before.user_type);
      // Still no System Manager: the list of users is still only their own record.
      const listed = dataOf(await actAs(t, plain, { method: 'GET', url: resourceUrl('User') }));
      assert.deepEqual(
        listed.map((r: Json) => r.name),
        [plain.name],
      );
    });

    test('a user sets a new password on their own record and logs in with it', async () => {
      const fresh = 'Own-Record-Secret-77';
      dataOf(await actAs(t, other, { method: 'PUT', url: resourceUrl('User', other.name), body: { new_password: fresh } }));
      const login = (pwd: string) => t.request({ method: 'POST', url: '/api/method/login', anonymous: true, body: { usr: other.name, pwd } });
      assert.equal((await login(fresh)).statusCode, 200);
      assert.equal((await login(USER_PASSWORD)).statusCode, 401);
    });

    test('the Administrator and Guest get no share of their own', async () => {
      const url = resourceUrl('DocShare') + query({ filters: { share_doctype: 'User', share_name: ['in', ['Administrator', 'Guest']] } });
      assert.deepEqual(dataOf(await t.request({ method: 'GET', url })), []);
    });
  });
}
