import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, dataOf, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createUser, query, type ActingUser } from '../helpers/permission-users.js';

// Administrator holds every role; a System Manager who could change its password, keys or roles
// would hold them too. So only the Administrator reaches the built-in users (reference user.has_permission).
for (const dialect of testDialects()) {
  describe(`Administrator and Guest are reached by the Administrator alone (${dialect.name})`, () => {
    let t: TestSite;
    let manager: ActingUser;

    before(async () => {
      t = await startTestSite(dialect);
      manager = await createUser(t, `manager-${Date.now()}@example.com`, { roles: ['System Manager'] });
    });
    after(() => t.close());

    test('a System Manager can neither read nor change nor delete Administrator or Guest: 403, nothing changes', async () => {
      const stored = await readDoc(t, 'User', 'Administrator');
      for (const name of ['Administrator', 'Guest']) {
        assertError(await actAs(t, manager, { method: 'GET', url: resourceUrl('User', name) }), 403, 'PermissionError');
        assertError(
          await actAs(t, manager, { method: 'PUT', url: resourceUrl('User', name), body: { new_password: 'Taken-Over-123', first_name: 'Mallory' } }),
          403,
          'PermissionError',
        );
        assertError(await actAs(t, manager, { method: 'DELETE', url: resourceUrl('User', name) }), 403, 'PermissionError');
      }
      assert.deepEqual(await readDoc(t, 'User', 'Administrator'), stored);
      const login = await t.request({ method: 'POST', url: '/api/method/login', anonymous: true, body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
      assert.equal(login.statusCode, 200, 'the Administrator password still works');
    });

    test("a System Manager cannot generate the Administrator's API keys, but may generate another user's", async () => {
      const refused = await actAs(t, manager, {
        method: 'POST',
        url: '/api/method/fw.core.doctype.user.user.generate_keys',
        body: { user: 'Administrator' },
      });
      assertError(refused, 403, 'PermissionError');
      const other = await createUser(t, `other-${Date.now()}@example.com`);
      const ok = await actAs(t, manager, { method: 'POST', url: '/api/method/fw.core.doctype.user.user.generate_keys', body: { user: other.name } });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    test('lists and counts of User leave the built-in users out for everyone but the Administrator', async () => {
      const filters = { name: ['in', ['Administrator', 'Guest', manager.name]] };
      const asManager = dataOf(await actAs(t, manager, { method: 'GET', url: `${resourceUrl('User')}${query({ filters })}` }));
      assert.deepEqual(
        asManager.map((r: Json) => r.name),
        [manager.name],
      );
      const count = await actAs(t, manager, { method: 'GET', url: `/api/method/frappe.client.get_count${query({ doctype: 'User', filters })}` });
      assert.equal(count.json().message, 1);
      const asAdmin = dataOf(await t.request({ method: 'GET', url: `${resourceUrl('User')}${query({ filters, order_by: 'name asc' })}` }));
      assert.deepEqual(asAdmin.map((r: Json) => r.name).sort(), ['Administrator', 'Guest', manager.name].sort());
    });

    test('the Administrator still changes its own record', async () => {
      const saved = dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', 'Administrator'), body: { last_name: 'Root' } }));
      assert.equal(saved.last_name, 'Root');
    });
  });
}
