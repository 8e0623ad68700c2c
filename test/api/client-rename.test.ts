import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getFieldSecret } from '../../src/auth/field-secrets.js';
import { testDialects } from '../helpers/dialects.js';
import { assertAbsent, assertError, createDocType, insertDoc, readDoc, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * fw.client.rename_doc (reference §14, `frappe.rename_doc`): the row, its child rows, stored
 * secrets and every Link and Dynamic Link pointing at it move to the new name in one transaction.
 */

const AUTHOR = 'Author';
const ALIAS = 'Author Alias';
const BOOK = 'Book';
const NOTE = 'Book Note';
const KEYED = 'Keyed Author';

for (const dialect of testDialects()) {
  describe(`fw.client.rename_doc (${dialect.name})`, () => {
    let t: TestSite;
    const rename = (args: Json, auth?: string) => callMethod(t, 'POST', 'frappe.client.rename_doc', args, auth);

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: ALIAS, istable: 1, fields: [{ fieldname: 'alias', label: 'Alias', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: AUTHOR,
        autoname: 'prompt',
        fields: [
          { fieldname: 'full_name', label: 'Full Name', fieldtype: 'Data' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Password' },
          { fieldname: 'mentor', label: 'Mentor', fieldtype: 'Link', options: AUTHOR },
          { fieldname: 'aliases', label: 'Aliases', fieldtype: 'Table', options: ALIAS },
        ],
      });
      await createDocType(t, {
        name: NOTE,
        istable: 1,
        fields: [
          { fieldname: 'note', label: 'Note', fieldtype: 'Data' },
          { fieldname: 'by', label: 'By', fieldtype: 'Link', options: AUTHOR },
        ],
      });
      await createDocType(t, {
        name: BOOK,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'author', label: 'Author', fieldtype: 'Link', options: AUTHOR },
          { fieldname: 'ref_type', label: 'Ref Type', fieldtype: 'Link', options: 'DocType' },
          { fieldname: 'ref_name', label: 'Ref Name', fieldtype: 'Dynamic Link', options: 'ref_type' },
          { fieldname: 'notes', label: 'Notes', fieldtype: 'Table', options: NOTE },
        ],
      });
      await createDocType(t, {
        name: KEYED,
        autoname: 'field:code',
        fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data' }],
      });
    });
    after(() => t.close());

    test('renames the row, its child rows, its secret, and every Link and Dynamic Link to it', async () => {
      await insertDoc(t, AUTHOR, { name: 'ann', full_name: 'Ann', secret: 'ann-secret', aliases: [{ alias: 'A.' }] });
      await insertDoc(t, AUTHOR, { name: 'bob', full_name: 'Bob', mentor: 'ann' });
      const book = await insertDoc(t, BOOK, {
        title: 'by ann',
        author: 'ann',
        ref_type: AUTHOR,
        ref_name: 'ann',
        notes: [
          { note: 'first', by: 'ann' },
          { note: 'second', by: 'bob' },
        ],
      });
      // The same name under another type: a Dynamic Link to that document must stay as it is.
      await insertDoc(t, KEYED, { code: 'ann' });
      const other = await insertDoc(t, BOOK, { title: 'points elsewhere', ref_type: KEYED, ref_name: 'ann' });
      const todo = await insertDoc(t, 'ToDo', { description: 'about ann', reference_type: AUTHOR, reference_name: 'ann' });

      const res = await rename({ doctype: AUTHOR, old_name: 'ann', new_name: 'anne' });
      assert.deepEqual(res.json(), { message: 'anne' });

      await assertAbsent(t, AUTHOR, 'ann');
      const renamed = await readDoc(t, AUTHOR, 'anne');
      assert.equal(renamed.full_name, 'Ann');
      assert.deepEqual(
        renamed.aliases.map((r: Json) => [r.alias, r.parent]),
        [['A.', 'anne']],
      );
      assert.equal((await readDoc(t, AUTHOR, 'bob')).mentor, 'anne');
      const b = await readDoc(t, BOOK, book.name);
      assert.equal(b.author, 'anne');
      assert.equal(b.ref_name, 'anne');
      assert.deepEqual(
        b.notes.map((r: Json) => r.by),
        ['anne', 'bob'],
      );
      assert.equal((await readDoc(t, BOOK, other.name)).ref_name, 'ann');
      assert.equal((await readDoc(t, 'ToDo', todo.name)).reference_name, 'anne');

      const secretOf = (name: string) =>
        t.site.db.read((q) => getFieldSecret(q, t.site.db.dialect, { doctype: AUTHOR, name, fieldname: 'secret' }, t.site.config.encryption_key));
      assert.equal(await secretOf('anne'), 'ann-secret');
      assert.equal(await secretOf('ann'), undefined);
    });

    test('a field: naming field follows the new name', async () => {
      await insertDoc(t, KEYED, { code: 'K1' });
      assert.equal(messageOf(await rename({ doctype: KEYED, old_name: 'K1', new_name: 'K2' })), 'K2');
      assert.equal((await readDoc(t, KEYED, 'K2')).code, 'K2');
    });

    test('a name already taken is a 409 DuplicateEntryError and nothing moves', async () => {
      await insertDoc(t, AUTHOR, { name: 'cat' });
      await insertDoc(t, AUTHOR, { name: 'dan' });
      const book = await insertDoc(t, BOOK, { author: 'cat' });
      assertError(await rename({ doctype: AUTHOR, old_name: 'cat', new_name: 'dan' }), 409, 'DuplicateEntryError');
      await readDoc(t, AUTHOR, 'cat');
      assert.equal((await readDoc(t, BOOK, book.name)).author, 'cat');
    });

    test('an invalid new name is a 409 NameError; the same name is a 417', async () => {
      await insertDoc(t, AUTHOR, { name: 'eve' });
      assertError(await rename({ doctype: AUTHOR, old_name: 'eve', new_name: 'e<v>e' }), 409, 'NameError');
      assertError(await rename({ doctype: AUTHOR, old_name: 'eve', new_name: 'eve' }), 417, 'ValidationError');
      await readDoc(t, AUTHOR, 'eve');
    });

    test('a DocType without allow_rename (ToDo) and merge=true are refused with 417', async () => {
      const todo = await insertDoc(t, 'ToDo', { description: 'stay' });
      assertError(await rename({ doctype: 'ToDo', old_name: todo.name, new_name: 'moved' }), 417, 'ValidationError');
      await insertDoc(t, AUTHOR, { name: 'fay' });
      assertError(await rename({ doctype: AUTHOR, old_name: 'fay', new_name: 'fae', merge: true }), 417, 'ValidationError');
      await readDoc(t, AUTHOR, 'fay');
    });

    test('a missing document is a 404; a caller without write permission gets 403', async () => {
      assertError(await rename({ doctype: AUTHOR, old_name: 'nobody-here', new_name: 'x' }), 404, 'DoesNotExistError');
      await insertDoc(t, AUTHOR, { name: 'gus' });
      await createUser(t, { email: 'no-rights@example.com', password: 'No-Rights-42' });
      const auth = await tokenFor(t, 'no-rights@example.com');
      assertError(await rename({ doctype: AUTHOR, old_name: 'gus', new_name: 'gustav' }, auth), 403, 'PermissionError');
    });

    test('a renamed User keeps their password, documents and email under the new name', async () => {
      await createUser(t, { email: 'old.name@example.com', password: 'Renamed-Secret-42' });
      const todo = await insertDoc(t, 'ToDo', { description: 'assigned', allocated_to: 'old.name@example.com' });
      const auth = await tokenFor(t, 'old.name@example.com');
      const own = { doctype: 'ToDo', description: 'mine', allocated_to: 'old.name@example.com' };
      assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.insert', { doc: own }, auth)).owner, 'old.name@example.com');

      const renamed = await rename({ doctype: 'User', old_name: 'old.name@example.com', new_name: 'new.name@example.com' });
      assert.equal(messageOf(renamed), 'new.name@example.com');
      assert.equal((await readDoc(t, 'User', 'new.name@example.com')).email, 'new.name@example.com');
      assert.equal((await readDoc(t, 'ToDo', todo.name)).allocated_to, 'new.name@example.com');
      const list = { doctype: 'ToDo', fields: ['owner'], filters: { description: 'mine' } };
      const mine = messageOf(await callMethod(t, 'GET', 'frappe.client.get_list', list));
      assert.deepEqual(mine, [{ owner: 'new.name@example.com' }]);
      const payload = { usr: 'new.name@example.com', pwd: 'Renamed-Secret-42' };
      const login = await t.app.inject({ method: 'POST', url: '/api/method/login', payload });
      assert.equal(login.statusCode, 200, login.body);
    });

    test('a renamed Role keeps granting what it granted: DocPerm and Has Role rows follow, metadata reloads', async () => {
      await insertDoc(t, 'Role', { role_name: 'Book Keeper' });
      await createDocType(t, {
        name: 'Ledger',
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Book Keeper', read: 1, write: 0, create: 0, delete: 0 }],
      });
      const ledger = await insertDoc(t, 'Ledger', { title: 'accounts' });
      await createUser(t, { email: 'keeper@example.com', password: 'Keeper-Secret-42', roles: ['Book Keeper'] });
      const auth = await tokenFor(t, 'keeper@example.com');
      const read = () => callMethod(t, 'GET', 'frappe.client.get', { doctype: 'Ledger', name: ledger.name }, auth);
      assert.equal(messageOf(await read()).title, 'accounts');

      assert.equal(messageOf(await rename({ doctype: 'Role', old_name: 'Book Keeper', new_name: 'Ledger Keeper' })), 'Ledger Keeper');
      assert.equal((await readDoc(t, 'Role', 'Ledger Keeper')).role_name, 'Ledger Keeper');
      assert.deepEqual(
        (await readDoc(t, 'DocType', 'Ledger')).permissions.map((p: Json) => p.role),
        ['System Manager', 'Ledger Keeper'],
      );
      assert.deepEqual(
        (await readDoc(t, 'User', 'keeper@example.com')).roles.map((r: Json) => r.role),
        ['Ledger Keeper'],
      );
      assert.equal(messageOf(await read()).title, 'accounts');
    });

    test('the Administrator cannot be renamed', async () => {
      assertError(await rename({ doctype: 'User', old_name: 'Administrator', new_name: 'Root' }), 417, 'ValidationError');
    });

    test('GET is refused with 403; a missing new_name is a 417 FrappeTypeError', async () => {
      assertError(await callMethod(t, 'GET', 'frappe.client.rename_doc', { doctype: AUTHOR, old_name: 'a', new_name: 'b' }), 403, 'PermissionError');
      assertError(await rename({ doctype: AUTHOR, old_name: 'a' }), 417, 'FrappeTypeError');
    });
  });
}
