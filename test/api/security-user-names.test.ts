import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, query, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { login } from '../helpers/user-sessions.js';

/*
 * Issue 14, item 1 (docs/security.md, "Authentication" and "Permissions"): a user cannot take
 * another account's name. Every user holds a share with write on their own User record; before the
 * fix that share renamed the record, to another user's email in another case or to
 * `administrator`, and the owner check ignored case.
 */

const NOTE = 'Sec Owned Note';
const ROLE = 'Sec Note Writer';

for (const dialect of testDialects()) {
  describe(`user names cannot be taken over (${dialect.name})`, () => {
    let t: TestSite;
    let alice: ActingUser;
    let bob: ActingUser;
    let bobNote: Json;
    const rename = (args: Json, user?: ActingUser) => callMethod(t, 'POST', 'frappe.client.rename_doc', { doctype: 'User', ...args }, user?.auth);
    const userNames = async () =>
      dataOf(await t.request({ method: 'GET', url: resourceUrl('User') + query({ fields: ['name', 'email'], limit_page_length: 0, order_by: 'name asc' }) }));

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, ROLE);
      await createDocType(t, {
        name: NOTE,
        fields: [{ fieldname: 'body', label: 'Body', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: ROLE, if_owner: 1, read: 1, write: 1, create: 1 }],
      });
      alice = await createUser(t, 'sec-alice@example.com', { roles: [ROLE] });
      bob = await createUser(t, 'sec-bob@example.com', { roles: [ROLE] });
      bobNote = dataOf(await actAs(t, bob, { method: 'POST', url: resourceUrl(NOTE), body: { body: 'bob only' } }));
    });
    after(() => t.close());

    test("renaming one's own User through the self-share is refused: to another user's email in another case, or to administrator", async () => {
      const before = await userNames();
      for (const target of ['SEC-BOB@example.com', 'Sec-Bob@Example.com', 'administrator', 'sec-alice2@example.com']) {
        assertError(await rename({ old_name: alice.name, new_name: target }, alice), 403, 'PermissionError');
      }
      assert.deepEqual(await userNames(), before);
      // Alice still reads only her own notes, and Bob's note is untouched.
      const listed = dataOf(await actAs(t, alice, { method: 'GET', url: resourceUrl(NOTE) + query({ fields: ['name'] }) }));
      assert.deepEqual(listed, []);
      assertError(await actAs(t, alice, { method: 'GET', url: resourceUrl(NOTE, bobNote.name) }), 403, 'PermissionError');
      assert.equal((await readDoc(t, NOTE, bobNote.name)).body, 'bob only');
    });

    test('a share never deletes: deleting the own User record is refused', async () => {
      assertError(await actAs(t, alice, { method: 'DELETE', url: resourceUrl('User', alice.name) }), 403, 'PermissionError');
      assert.equal((await readDoc(t, 'User', alice.name)).name, alice.name);
    });

    test("a System Manager cannot rename a user to a name that differs from another only in case (409), nor to another user's email", async () => {
      const before = await userNames();
      for (const target of ['SEC-BOB@example.com', 'ADMINISTRATOR', 'guest']) {
        assertError(await rename({ old_name: alice.name, new_name: target }), 409, 'DuplicateEntryError');
      }
      // Carol's name is not her email any more; her email is taken all the same.
      await createUser(t, 'sec-carol@example.com');
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', 'sec-carol@example.com'), body: { email: 'carol.alt@example.com' } }));
      assertError(await rename({ old_name: alice.name, new_name: 'carol.alt@example.com' }), 409, 'DuplicateEntryError');
      assert.deepEqual(
        (await userNames()).filter((u: Json) => u.name !== 'sec-carol@example.com'),
        before,
      );
      // Login by that email resolves to exactly Carol.
      const res = await login(t.app, 'CAROL.ALT@example.com', USER_PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.cookies.find((c) => c.name === 'user_id')?.value, 'sec-carol@example.com');
    });

    test('a new user whose name differs from an existing one only in case is 409, and nothing is stored', async () => {
      await createUser(t, 'sec-dave@example.com');
      assert.equal(messageOf(await rename({ old_name: 'sec-dave@example.com', new_name: 'Sec.Mixed@example.com' })), 'Sec.Mixed@example.com');
      const before = await userNames();
      const body = { email: 'sec.mixed@example.com', first_name: 'Copy', new_password: USER_PASSWORD };
      assertError(await t.request({ method: 'POST', url: resourceUrl('User'), body }), 409, 'DuplicateEntryError');
      assert.deepEqual(await userNames(), before);
    });

    test("a user created again under a deleted user's name does not inherit the deleted user's shares", async () => {
      const erin = await createUser(t, 'sec-erin@example.com');
      const note = await insertDoc(t, NOTE, { body: 'shared with erin' });
      dataOf(await t.request({ method: 'POST', url: resourceUrl('DocShare'), body: { share_doctype: NOTE, share_name: note.name, user: erin.name, read: 1 } }));
      assert.equal(dataOf(await actAs(t, erin, { method: 'GET', url: resourceUrl(NOTE, note.name) })).body, 'shared with erin');
      assert.equal((await t.request({ method: 'DELETE', url: resourceUrl('User', erin.name) })).statusCode, 202);
      const again = await createUser(t, 'sec-erin@example.com');
      assertError(await actAs(t, again, { method: 'GET', url: resourceUrl(NOTE, note.name) }), 403, 'PermissionError');
      const shares = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocShare') + query({ filters: { user: again.name, share_doctype: NOTE } }) }));
      assert.deepEqual(shares, []);
    });

    test('two concurrent renames to names differing only in case: at most one succeeds', async () => {
      const one = await createUser(t, 'sec-race-one@example.com');
      const two = await createUser(t, 'sec-race-two@example.com');
      const answers = await Promise.all([
        rename({ old_name: one.name, new_name: 'Sec-Race@example.com' }),
        rename({ old_name: two.name, new_name: 'sec-race@Example.com' }),
      ]);
      assert.equal(answers.filter((a) => a.statusCode === 200).length, 1, answers.map((a) => a.body).join('\n'));
      for (const a of answers.filter((r) => r.statusCode !== 200)) assertError(a, 409, 'DuplicateEntryError');
      const lowered = ((await userNames()) as Json[]).map((u) => String(u.name).toLowerCase());
      assert.equal(new Set(lowered).size, lowered.length, 'no two user names differ only in case');
    });

    test('the database itself refuses a user name differing from another only in case', async () => {
      const builder = t.site.db.dialect.builder;
      const clash = (name: string) => t.site.transaction((q) => q.run(builder.updateTable('tabUser').set({ name }).where('name', '=', alice.name).compile()));
      await assert.rejects(clash('SEC-BOB@example.com'));
      assert.equal((await readDoc(t, 'User', alice.name)).name, alice.name);
    });
  });
}
