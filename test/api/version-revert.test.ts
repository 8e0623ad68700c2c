import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Reverting a document to an earlier Version (docs/admin-ui.md "Undo"): POST
 * `fw.core.doctype.version.version.revert {name}` saves the document again with the values it had
 * right after that Version, as a new save (a new Version, a new `modified`), for a caller who may
 * write it; a reader, a submitted document and a stale or unknown Version are refused and change nothing.
 */

const REVERT = 'fw.core.doctype.version.version.revert';

for (const dialect of testDialects()) {
  describe(`revert to a version (${dialect.name})`, () => {
    let t: TestSite;
    const NOTE = uniqueDocTypeName('VR Note');
    const SUB = uniqueDocTypeName('VR Order');
    let reader: ActingUser;
    let writer: ActingUser;

    async function versionsOf(doctype: string, name: string): Promise<Json[]> {
      const url =
        resourceUrl('Version') +
        query({
          fields: ['name', 'creation', 'data'],
          filters: [
            ['ref_doctype', '=', doctype],
            ['docname', '=', name],
          ],
          order_by: 'creation asc',
        });
      return dataOf(await t.request({ method: 'GET', url })) as Json[];
    }
    async function edit(doctype: string, name: string, patch: Json): Promise<Json> {
      return dataOf(await t.request({ method: 'PUT', url: resourceUrl(doctype, name), body: patch }));
    }

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'VR Reader');
      await createRole(t, 'VR Writer');
      reader = await createUser(t, 'vr-reader@example.com', { roles: ['VR Reader'] });
      writer = await createUser(t, 'vr-writer@example.com', { roles: ['VR Writer'] });
      await createDocType(t, {
        name: NOTE,
        track_changes: 1,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        ],
        permissions: [
          { role: 'System Manager' },
          { role: 'VR Reader', read: 1, write: 0, create: 0, delete: 0 },
          { role: 'VR Writer', read: 1, write: 1, create: 0, delete: 0 },
        ],
      });
      await createDocType(t, {
        name: SUB,
        track_changes: 1,
        is_submittable: 1,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1 }],
      });
    });
    after(() => t.close());

    test('reverting saves the values the document had right after that version, as a new version', async () => {
      const doc = await insertDoc(t, NOTE, { title: 'first', qty: 1 });
      await edit(NOTE, doc.name, { title: 'second', qty: 2 });
      await edit(NOTE, doc.name, { title: 'third' });
      await edit(NOTE, doc.name, { qty: 4 });
      const versions = await versionsOf(NOTE, doc.name);
      assert.equal(versions.length, 3, JSON.stringify(versions));
      const before = await readDoc(t, NOTE, doc.name);
      const saved = messageOf(await actAs(t, writer, { method: 'POST', url: `/api/method/${REVERT}`, body: { name: versions[0].name } }));
      assert.equal(saved.name, doc.name);
      const back = await readDoc(t, NOTE, doc.name);
      assert.deepEqual([back.title, back.qty], ['second', 2]);
      assert.equal(back.modified_by, writer.name);
      assert.ok(String(back.modified) > String(before.modified));
      const after = await versionsOf(NOTE, doc.name);
      assert.equal(after.length, 4, 'the revert is a new save with its own Version');
      const changed = JSON.parse(String(after[3].data)).changed as unknown[][];
      assert.deepEqual(changed.map((c) => c[0]).sort(), ['qty', 'title']);
    });

    test('the newest version reverts to nothing new and answers the document unchanged', async () => {
      const doc = await insertDoc(t, NOTE, { title: 'only', qty: 1 });
      await edit(NOTE, doc.name, { qty: 5 });
      const [v] = await versionsOf(NOTE, doc.name);
      const stored = await readDoc(t, NOTE, doc.name);
      const answer = messageOf(await callMethod(t, 'POST', REVERT, { name: v.name }));
      assert.equal(answer.modified, stored.modified);
      assert.equal((await versionsOf(NOTE, doc.name)).length, 1);
    });

    test('a user who may only read is refused with 403 and nothing changes', async () => {
      const doc = await insertDoc(t, NOTE, { title: 'a', qty: 1 });
      await edit(NOTE, doc.name, { title: 'b' });
      await edit(NOTE, doc.name, { title: 'c' });
      const [v] = await versionsOf(NOTE, doc.name);
      const stored = await readDoc(t, NOTE, doc.name);
      assertError(await actAs(t, reader, { method: 'POST', url: `/api/method/${REVERT}`, body: { name: v.name } }), 403, 'PermissionError');
      assertError(await actAs(t, undefined, { method: 'POST', url: `/api/method/${REVERT}`, body: { name: v.name } }), 403, 'PermissionError');
      const now = await readDoc(t, NOTE, doc.name);
      assert.deepEqual([now.title, now.modified], [stored.title, stored.modified]);
      assert.equal((await versionsOf(NOTE, doc.name)).length, 2);
    });

    test('a submitted document is refused with 417, an unknown version with 404, a GET is not allowed', async () => {
      const doc = await insertDoc(t, SUB, { title: 'x' });
      await edit(SUB, doc.name, { title: 'y' });
      await edit(SUB, doc.name, { title: 'z' });
      await edit(SUB, doc.name, { docstatus: 1 });
      const [v] = await versionsOf(SUB, doc.name);
      const body = assertError(await callMethod(t, 'POST', REVERT, { name: v.name }), 417, 'ValidationError');
      assert.match(JSON.stringify(body), /only a draft can be reverted/);
      assert.equal((await readDoc(t, SUB, doc.name)).title, 'z');
      assertError(await callMethod(t, 'POST', REVERT, { name: 'no-such-version' }), 404, 'DoesNotExistError');
      assert.notEqual((await callMethod(t, 'GET', REVERT, { name: v.name })).statusCode, 200);
      assertError(await callMethod(t, 'POST', REVERT, {}), 417, 'FrappeTypeError');
    });
  });
}
