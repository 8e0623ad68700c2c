import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import {
  assertAbsent,
  assertError,
  createDocType,
  dataOf,
  insertDoc,
  readDoc,
  resourceUrl,
  storedCount,
  uniqueDocTypeName,
  type Json,
} from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The Deleted Document archive (reference §8): a deleted document is kept whole, child rows
 * included, and `fw.core.doctype.deleted_document.deleted_document.restore` (POST, System Manager)
 * inserts it again under its name, through validation, and marks the archive restored.
 */

const RESTORE = 'fw.core.doctype.deleted_document.deleted_document.restore';

for (const dialect of testDialects()) {
  describe(`deleted documents (${dialect.name})`, () => {
    let t: TestSite;
    const PART = uniqueDocTypeName('DD Part');
    const TARGET = uniqueDocTypeName('DD Target');
    const KIT = uniqueDocTypeName('DD Kit');
    let clerk: ActingUser;

    /** The archive of one deleted document (as the Administrator), failing unless there is exactly one. */
    async function archiveOf(doctype: string, name: string): Promise<Json> {
      const url =
        resourceUrl('Deleted Document') +
        query({
          fields: ['name', 'deleted_name', 'deleted_doctype', 'data', 'restored', 'new_name'],
          filters: [
            ['deleted_doctype', '=', doctype],
            ['deleted_name', '=', name],
          ],
        });
      const rows = dataOf(await t.request({ method: 'GET', url })) as Json[];
      assert.equal(rows.length, 1, JSON.stringify(rows));
      return rows[0];
    }

    async function remove(doctype: string, name: string): Promise<void> {
      const res = await t.request({ method: 'DELETE', url: resourceUrl(doctype, name) });
      assert.equal(res.statusCode, 202, res.body);
    }

    async function kit(title: string, extra: Json = {}): Promise<Json> {
      return insertDoc(t, KIT, {
        title,
        parts: [
          { part: 'bolt', qty: 4 },
          { part: 'nut', qty: 8 },
        ],
        ...extra,
      });
    }

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'DD Clerk');
      clerk = await createUser(t, 'dd-clerk@example.com', { roles: ['DD Clerk'] });
      await createDocType(t, {
        name: PART,
        istable: 1,
        fields: [
          { fieldname: 'part', label: 'Part', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        ],
      });
      await createDocType(t, { name: TARGET, fields: [{ fieldname: 'label', label: 'Label', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: KIT,
        autoname: 'field:title',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1, unique: 1 },
          { fieldname: 'target', label: 'Target', fieldtype: 'Link', options: TARGET },
          { fieldname: 'parts', label: 'Parts', fieldtype: 'Table', options: PART },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'DD Clerk' }],
      });
    });
    after(() => t.close());

    test('deleting a document keeps it whole, child rows included, in Deleted Document', async () => {
      const doc = await kit('archived');
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      assert.equal(archive.restored, 0);
      assert.equal(archive.new_name, null);
      const data = JSON.parse(archive.data) as Json;
      assert.equal(data.doctype, KIT);
      assert.equal(data.name, doc.name);
      assert.equal(data.creation, doc.creation);
      assert.deepEqual(
        (data.parts as Json[]).map((r) => [r.name, r.part, r.qty]),
        (doc.parts as Json[]).map((r) => [r.name, r.part, r.qty]),
      );
    });

    test('restore brings the document back under its name with its child rows, owner and creation', async () => {
      const body = {
        title: 'restored',
        parts: [
          { part: 'bolt', qty: 4 },
          { part: 'nut', qty: 8 },
        ],
      };
      const doc = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(KIT), body }));
      assert.equal(doc.owner, clerk.name);
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      assert.equal(messageOf(await callMethod(t, 'POST', RESTORE, { name: archive.name })), doc.name);
      const back = await readDoc(t, KIT, doc.name);
      assert.equal(back.owner, doc.owner);
      assert.equal(back.creation, doc.creation);
      assert.equal(back.modified, doc.modified);
      assert.deepEqual(
        (back.parts as Json[]).map((r) => [r.name, r.idx, r.part, r.qty]),
        (doc.parts as Json[]).map((r) => [r.name, r.idx, r.part, r.qty]),
      );
      const marked = await archiveOf(KIT, doc.name);
      assert.equal(marked.restored, 1);
      assert.equal(marked.new_name, doc.name);
    });

    test('restoring an archive twice is refused with 417', async () => {
      const doc = await kit('twice');
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      messageOf(await callMethod(t, 'POST', RESTORE, { name: archive.name }));
      assertError(await callMethod(t, 'POST', RESTORE, { name: archive.name }), 417, 'ValidationError');
    });

    test('restoring over a name taken meanwhile is 409 and changes nothing', async () => {
      const doc = await kit('clash');
      await remove(KIT, doc.name);
      const replacement = await kit('clash', { parts: [] });
      const archive = await archiveOf(KIT, doc.name);
      assertError(await callMethod(t, 'POST', RESTORE, { name: archive.name }), 409, 'DuplicateEntryError');
      assert.deepEqual(await readDoc(t, KIT, doc.name), replacement);
      assert.equal((await archiveOf(KIT, doc.name)).restored, 0);
    });

    test('restoring re-runs validation: a link to a document deleted since is 417 and nothing is stored', async () => {
      const target = await insertDoc(t, TARGET, { label: 'soon gone' });
      const doc = await kit('linked', { target: target.name });
      await remove(KIT, doc.name);
      await remove(TARGET, target.name);
      const archive = await archiveOf(KIT, doc.name);
      assertError(await callMethod(t, 'POST', RESTORE, { name: archive.name }), 417, 'LinkValidationError');
      await assertAbsent(t, KIT, doc.name);
      assert.equal((await archiveOf(KIT, doc.name)).restored, 0);
    });

    test('GET on the restore method is 403', async () => {
      const doc = await kit('by get');
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      assertError(await callMethod(t, 'GET', RESTORE, { name: archive.name }), 403, 'PermissionError');
      await assertAbsent(t, KIT, doc.name);
    });

    test('only a System Manager may restore, even one who may create the document', async () => {
      const doc = await kit('not for clerks');
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      assertError(await callMethod(t, 'POST', RESTORE, { name: archive.name }, clerk.auth), 403, 'PermissionError');
      assertError(await actAs(t, clerk, { method: 'GET', url: resourceUrl('Deleted Document') }), 403, 'PermissionError');
      await assertAbsent(t, KIT, doc.name);
    });

    test('an unknown archive is 404', async () => {
      assertError(await callMethod(t, 'POST', RESTORE, { name: 'no-such-archive' }), 404, 'DoesNotExistError');
    });

    test('restore is also the whitelisted document method of Deleted Document', async () => {
      const doc = await kit('doc method');
      await remove(KIT, doc.name);
      const archive = await archiveOf(KIT, doc.name);
      const res = await callMethod(t, 'POST', 'run_doc_method', { dt: 'Deleted Document', dn: archive.name, method: 'restore' });
      assert.equal(messageOf(res), doc.name);
      assert.equal(res.json().docs[0].restored, 1);
      assert.equal((await readDoc(t, KIT, doc.name)).title, 'doc method');
    });

    test('deleting an archive or a Version archives nothing', async () => {
      const doc = await kit('archive of archive');
      await remove(KIT, doc.name);
      const before = await storedCount(t, 'Deleted Document');
      await remove('Deleted Document', (await archiveOf(KIT, doc.name)).name);
      const todo = await insertDoc(t, 'ToDo', { description: 'versioned' });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('ToDo', todo.name), body: { priority: 'High' } }));
      const versions = dataOf(await t.request({ method: 'GET', url: resourceUrl('Version') + query({ filters: [['docname', '=', todo.name]] }) })) as Json[];
      assert.equal(versions.length, 1);
      await remove('Version', versions[0].name);
      assert.equal(await storedCount(t, 'Deleted Document'), before - 1);
    });

    test('a deleted (empty) DocType is archived and restoring it brings back its definition and table', async () => {
      const name = uniqueDocTypeName('DD Gone');
      await createDocType(t, { name, fields: [{ fieldname: 'note', label: 'Note', fieldtype: 'Data' }] });
      await remove('DocType', name);
      const archive = await archiveOf('DocType', name);
      assert.equal(messageOf(await callMethod(t, 'POST', RESTORE, { name: archive.name })), name);
      assert.deepEqual(
        (await readDoc(t, 'DocType', name)).fields.map((f: Json) => f.fieldname),
        ['note'],
      );
      assert.equal((await insertDoc(t, name, { note: 'works again' })).note, 'works again');
    });
  });
}
