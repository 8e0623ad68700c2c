import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createUser, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { login } from '../helpers/user-sessions.js';

/*
 * Issue 28, item 1 (docs/security.md "The Administrator"): a System Manager holds every role but
 * is not the Administrator, who passes every permission check. Every way to act as the
 * Administrator (its password, API keys, roles, name, record, shares) is refused to a System
 * Manager: 403 (or 417 for a role only the Administrator holds) and nothing about the
 * Administrator changes.
 */

const KEYS = '/api/method/fw.core.doctype.user.user.generate_keys';

for (const dialect of testDialects()) {
  describe(`a System Manager cannot act as the Administrator (${dialect.name})`, () => {
    let t: TestSite;
    let manager: ActingUser;

    const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: Json): Promise<LightMyRequestResponse> =>
      actAs(t, manager, { method, url, ...(body !== undefined ? { body } : {}) });
    /** Everything that would tell an attack on the Administrator worked. */
    const administratorState = async () => {
      const doc = await readDoc(t, 'User', 'Administrator');
      const shares = await t.request({
        method: 'GET',
        url: `${resourceUrl('DocShare')}?filters=${encodeURIComponent(JSON.stringify({ share_name: 'Administrator' }))}`,
      });
      return { doc, shares: shares.json().data };
    };
    const refused = (res: LightMyRequestResponse, what: string) => {
      assert.ok([403, 404, 417].includes(res.statusCode), `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      assert.doesNotMatch(res.body, /api_secret/, `${what}: no secret in the answer`);
    };

    before(async () => {
      t = await startTestSite(dialect);
      manager = await createUser(t, `takeover-${Date.now()}@example.com`, { roles: ['System Manager'] });
    });
    after(() => t.close());

    test('keys, password, roles, name, shares and the record of the Administrator are out of reach through every path', async () => {
      const stored = await administratorState();
      const attempts: Array<[string, () => Promise<LightMyRequestResponse>]> = [
        ['generate_keys (v1)', () => as('POST', KEYS, { user: 'Administrator' })],
        ['generate_keys (v2 shorthand)', () => as('POST', '/api/v2/method/User/generate_keys', { user: 'Administrator' })],
        ['generate_keys (frappe. path)', () => as('POST', '/api/method/frappe.core.doctype.user.user.generate_keys', { user: 'Administrator' })],
        ['generate_keys (cmd at /)', () => as('POST', '/', { cmd: 'frappe.core.doctype.user.user.generate_keys', user: 'Administrator' })],
        ['generate_keys for "administrator"', () => as('POST', KEYS, { user: 'administrator' })],
        ['PUT new_password', () => as('PUT', resourceUrl('User', 'Administrator'), { new_password: 'Taken-Over-123' })],
        ['PUT v2', () => as('PUT', '/api/v2/document/User/Administrator', { new_password: 'Taken-Over-123', api_key: 'mine' })],
        ['PUT roles', () => as('PUT', resourceUrl('User', 'Administrator'), { roles: [{ role: 'Guest' }] })],
        [
          'set_value new_password',
          () =>
            as('POST', '/api/method/frappe.client.set_value', { doctype: 'User', name: 'Administrator', fieldname: 'new_password', value: 'Taken-Over-123' }),
        ],
        [
          'set_value api_key',
          () =>
            as('POST', '/api/method/frappe.client.set_value', {
              doctype: 'User',
              name: 'Administrator',
              fieldname: { api_key: 'mine', email: 'mallory@example.com' },
            }),
        ],
        ['save', () => as('POST', '/api/method/frappe.client.save', { doc: { doctype: 'User', name: 'Administrator', new_password: 'Taken-Over-123' } })],
        [
          'insert Has Role',
          () =>
            as('POST', '/api/method/frappe.client.insert', {
              doc: { doctype: 'Has Role', parent: 'Administrator', parenttype: 'User', parentfield: 'roles', role: 'Guest' },
            }),
        ],
        ['POST Has Role', () => as('POST', resourceUrl('Has Role'), { parent: 'Administrator', parenttype: 'User', parentfield: 'roles', role: 'Guest' })],
        ['rename', () => as('POST', '/api/method/frappe.client.rename_doc', { doctype: 'User', old_name: 'Administrator', new_name: 'mallory@example.com' })],
        ['delete', () => as('POST', '/api/method/frappe.client.delete', { doctype: 'User', name: 'Administrator' })],
        ['DELETE', () => as('DELETE', resourceUrl('User', 'Administrator'))],
        [
          'share with write',
          () => as('POST', resourceUrl('DocShare'), { share_doctype: 'User', share_name: 'Administrator', user: manager.name, read: 1, write: 1, share: 1 }),
        ],
        ['run_doc_method', () => as('POST', '/api/method/run_doc_method', { dt: 'User', dn: 'Administrator', method: 'generate_keys' })],
        ['getdoc', () => as('GET', '/api/method/frappe.desk.form.load.getdoc?doctype=User&name=Administrator')],
      ];
      for (const [what, attempt] of attempts) refused(await attempt(), what);
      // bulk_update answers 200 and lists each refused document, as the reference does.
      const bulk = await as('POST', '/api/method/frappe.client.bulk_update', {
        docs: [{ doctype: 'User', docname: 'Administrator', new_password: 'Taken-Over-123' }],
      });
      assert.match(JSON.stringify(bulk.json().message.failed_docs), /PermissionError/);

      assert.deepEqual(await administratorState(), stored, 'the Administrator record and its shares are as they were');
      // The test site's requests carry the Administrator's API key and secret: a new secret would end them.
      const byKey = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user' });
      assert.equal(byKey.json().message, 'Administrator', 'the Administrator API secret still works');
      assert.equal((await login(t.app, 'Administrator', ADMIN_PASSWORD)).statusCode, 200, 'the password is unchanged');
      assert.equal((await login(t.app, 'Administrator', 'Taken-Over-123')).statusCode, 401);
    });

    test("a System Manager cannot give anyone, itself included, the Administrator's own role", async () => {
      const other = await createUser(t, `promoted-${Date.now()}@example.com`);
      const before = await readDoc(t, 'User', other.name);
      for (const user of [other.name, manager.name]) {
        refused(await as('PUT', resourceUrl('User', user), { roles: [{ role: 'Administrator' }, { role: 'System Manager' }] }), `role on ${user}`);
      }
      refused(
        await as('POST', resourceUrl('User'), { email: `second-root-${Date.now()}@example.com`, first_name: 'Root', roles: [{ role: 'Administrator' }] }),
        'new user with the role',
      );
      assert.deepEqual(await readDoc(t, 'User', other.name), before);
      assert.ok(!((await readDoc(t, 'User', manager.name)).roles as Json[]).some((r) => r.role === 'Administrator'));
      assert.equal((await login(t.app, manager.name, USER_PASSWORD)).statusCode, 200);
      // The Administrator still may.
      const granted = await t.request({ method: 'PUT', url: resourceUrl('User', other.name), body: { roles: [{ role: 'Administrator' }] } });
      assert.equal(granted.statusCode, 200, granted.body);
      const kept = await as('PUT', resourceUrl('User', other.name), { first_name: 'Kept', roles: [{ role: 'Administrator' }] });
      assert.equal(kept.statusCode, 200, 'a System Manager may edit a user who holds the role already');
    });
  });
}
