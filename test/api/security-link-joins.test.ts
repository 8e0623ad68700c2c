import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, insertDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Issue 14, item 4 (docs/security.md, "Permissions"): `link.field` joins the linked DocType, whose
 * row rules (if_owner, User Permissions, shares, permission hooks) apply to the joined row exactly
 * as to a list of that DocType. A joined row the caller may not read reads as NULL everywhere.
 */

const SECRET = 'Sec Joined Secret';
const REF = 'Sec Joined Ref';
const OWNER_ROLE = 'Sec Secret Keeper';
const READER_ROLE = 'Sec Secret Reader';

for (const dialect of testDialects()) {
  describe(`Link joins follow the joined DocType's row rules (${dialect.name})`, () => {
    let t: TestSite;
    let alice: ActingUser;
    let bob: ActingUser;
    let carol: ActingUser;
    let aliceSecret: string;
    let bobSecret: string;
    let refToAlice: string;
    let refToBob: string;

    const list = (user: ActingUser, params: Record<string, unknown>) =>
      actAs(t, user, { method: 'GET', url: resourceUrl(REF) + query({ limit_page_length: 0, ...params }) });
    /** Each Ref's joined content as `user` lists it: name -> content. */
    const contents = async (user: ActingUser): Promise<Record<string, unknown>> => {
      const rows = dataOf(await list(user, { fields: ['name', 'secret.content'] })) as Json[];
      return Object.fromEntries(rows.map((r) => [r.name, r.content]));
    };

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, OWNER_ROLE);
      await createRole(t, READER_ROLE);
      await createDocType(t, {
        name: SECRET,
        fields: [{ fieldname: 'content', label: 'Content', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: OWNER_ROLE, if_owner: 1, read: 1, write: 1, create: 1, share: 1 }, { role: READER_ROLE, read: 1 }],
      });
      await createDocType(t, {
        name: REF,
        fields: [
          { fieldname: 'label', label: 'Label', fieldtype: 'Data' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Link', options: SECRET },
        ],
        permissions: [{ role: 'System Manager' }, { role: OWNER_ROLE, read: 1 }, { role: READER_ROLE, read: 1 }],
      });
      alice = await createUser(t, 'join-alice@example.com', { roles: [OWNER_ROLE] });
      bob = await createUser(t, 'join-bob@example.com', { roles: [OWNER_ROLE] });
      carol = await createUser(t, 'join-carol@example.com', { roles: [READER_ROLE] });
      aliceSecret = dataOf(await actAs(t, alice, { method: 'POST', url: resourceUrl(SECRET), body: { content: 'alpha' } })).name;
      bobSecret = dataOf(await actAs(t, bob, { method: 'POST', url: resourceUrl(SECRET), body: { content: 'bravo' } })).name;
      refToAlice = (await insertDoc(t, REF, { label: 'one', secret: aliceSecret })).name;
      refToBob = (await insertDoc(t, REF, { label: 'two', secret: bobSecret })).name;
      // Carol reads every secret by role, but a User Permission narrows her to Bob's.
      dataOf(
        await t.request({
          method: 'POST',
          url: resourceUrl('User Permission'),
          body: { user: carol.name, allow: SECRET, for_value: bobSecret, apply_to_all_doctypes: 0, applicable_for: SECRET },
        }),
      );
    });
    after(() => t.close());

    test('fields: a joined if_owner row of another user reads as null', async () => {
      assert.deepEqual(await contents(bob), { [refToAlice]: null, [refToBob]: 'bravo' });
    });

    test('filters, or_filters, order_by, group_by and counts on a joined field are no oracle', async () => {
      for (const params of [
        { filters: [['secret.content', '=', 'alpha']] },
        { filters: [['secret.content', 'like', 'a%']] },
        {
          or_filters: [
            ['secret.content', '=', 'alpha'],
            ['label', '=', 'nothing'],
          ],
        },
        { filters: { 'secret.content': ['in', ['alpha']] } },
      ]) {
        assert.deepEqual(dataOf(await list(bob, { fields: ['name'], ...params })), [], JSON.stringify(params));
        const count = await callMethod(t, 'GET', 'frappe.client.get_count', { doctype: REF, ...params }, bob.auth);
        assert.equal(messageOf(count), 0, JSON.stringify(params));
      }
      const grouped = dataOf(await list(bob, { fields: ['secret.content', 'count(name) as n'], group_by: 'secret.content', order_by: 'secret.content asc' }));
      assert.deepEqual(new Set(grouped.map((r: Json) => r.content)), new Set([null, 'bravo']));
      const sorted = dataOf(await list(bob, { fields: ['name'], order_by: 'secret.content desc' }));
      assert.deepEqual(new Set(sorted.map((r: Json) => r.name)), new Set([refToAlice, refToBob]));
    });

    test('a share of the joined row makes it readable through the join', async () => {
      dataOf(
        await actAs(t, alice, {
          method: 'POST',
          url: resourceUrl('DocShare'),
          body: { share_doctype: SECRET, share_name: aliceSecret, user: bob.name, read: 1 },
        }),
      );
      assert.deepEqual(await contents(bob), { [refToAlice]: 'alpha', [refToBob]: 'bravo' });
      assert.deepEqual(dataOf(await list(bob, { fields: ['name'], filters: [['secret.content', '=', 'alpha']] })), [{ name: refToAlice }]);
    });

    test('User Permissions on the joined DocType apply too', async () => {
      assert.deepEqual(await contents(carol), { [refToAlice]: null, [refToBob]: 'bravo' });
      assert.deepEqual(dataOf(await list(carol, { fields: ['name'], filters: [['secret.content', '=', 'alpha']] })), []);
    });

    test('the owners and System Managers still read every joined value they may read', async () => {
      assert.deepEqual(await contents(alice), { [refToAlice]: 'alpha', [refToBob]: null });
      const all = dataOf(await t.request({ method: 'GET', url: resourceUrl(REF) + query({ fields: ['name', 'secret.content'] }) })) as Json[];
      assert.deepEqual(Object.fromEntries(all.map((r) => [r.name, r.content])), { [refToAlice]: 'alpha', [refToBob]: 'bravo' });
    });
  });
}
