import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { fileOf, uploadFile } from '../helpers/file-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * What a rename carries along besides Links (reference `rename_doc`): Version history, shares,
 * User Permissions, assignments, attachments, and link values stored by Single DocTypes, each only
 * when it names the renamed document's DocType.
 */

const PROJECT = 'RR Project';
const OTHER = 'RR Other';
const SETTINGS = 'RR Settings';

for (const dialect of testDialects()) {
  describe(`rename carries references along (${dialect.name})`, () => {
    let t: TestSite;
    let visitor: ActingUser;
    let restricted: ActingUser;
    const rename = (doctype: string, oldName: string, newName: string) =>
      callMethod(t, 'POST', 'frappe.client.rename_doc', { doctype, old_name: oldName, new_name: newName });
    const listOf = async (doctype: string, filters: Json, fields = ['name']): Promise<Json[]> =>
      dataOf(await t.request({ method: 'GET', url: resourceUrl(doctype) + query({ fields, filters, limit_page_length: 0 }) })) as Json[];
    const versionNames = async (doctype: string, docname: string): Promise<string[]> =>
      (await listOf('Version', { ref_doctype: doctype, docname })).map((v) => v.name).sort();

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'RR Reader');
      visitor = await createUser(t, 'rr-visitor@example.com', { userType: 'Website User' });
      restricted = await createUser(t, 'rr-restricted@example.com', { roles: ['RR Reader'] });
      const tracked = { autoname: 'prompt', allow_rename: 1, track_changes: 1, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] };
      await createDocType(t, {
        name: PROJECT,
        ...tracked,
        permissions: [{ role: 'System Manager' }, { role: 'RR Reader', write: 0, create: 0, delete: 0 }],
      });
      await createDocType(t, { name: OTHER, ...tracked });
      await createDocType(t, {
        name: SETTINGS,
        issingle: 1,
        fields: [
          { fieldname: 'main_project', label: 'Main Project', fieldtype: 'Link', options: PROJECT },
          { fieldname: 'ref_type', label: 'Ref Type', fieldtype: 'Link', options: 'DocType' },
          { fieldname: 'ref_name', label: 'Ref Name', fieldtype: 'Dynamic Link', options: 'ref_type' },
        ],
      });
    });
    after(() => t.close());

    test('Versions move to the new name; those of the same name in another DocType stay', async () => {
      for (const doctype of [PROJECT, OTHER]) {
        await insertDoc(t, doctype, { name: 'apollo', title: 'one' });
        dataOf(await t.request({ method: 'PUT', url: resourceUrl(doctype, 'apollo'), body: { title: 'two' } }));
      }
      const before = await versionNames(PROJECT, 'apollo');
      const untouched = await versionNames(OTHER, 'apollo');
      assert.equal(before.length, 1);

      assert.equal(messageOf(await rename(PROJECT, 'apollo', 'artemis')), 'artemis');
      assert.deepEqual(await versionNames(PROJECT, 'artemis'), before);
      assert.deepEqual(await versionNames(PROJECT, 'apollo'), []);
      assert.deepEqual(await versionNames(OTHER, 'apollo'), untouched);

      // History keeps growing under the new name.
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(PROJECT, 'artemis'), body: { title: 'three' } }));
      assert.equal((await versionNames(PROJECT, 'artemis')).length, 2);
    });

    test('a share, a User Permission, an assignment and an attachment follow, and still grant what they granted', async () => {
      await insertDoc(t, PROJECT, { name: 'gemini', title: 'shared' });
      await insertDoc(t, PROJECT, { name: 'mercury', title: 'not allowed' });
      const share = await insertDoc(t, 'DocShare', { user: visitor.name, share_doctype: PROJECT, share_name: 'gemini', read: 1 });
      const permission = await insertDoc(t, 'User Permission', { user: restricted.name, allow: PROJECT, for_value: 'gemini' });
      const todo = await insertDoc(t, 'ToDo', { description: 'review', reference_type: PROJECT, reference_name: 'gemini' });
      const file = fileOf(await uploadFile(t, 'plan.txt', 'plan bytes', { doctype: PROJECT, docname: 'gemini' }));

      assert.equal(messageOf(await rename(PROJECT, 'gemini', 'orion')), 'orion');
      assert.equal((await readDoc(t, 'DocShare', share.name)).share_name, 'orion');
      assert.equal((await readDoc(t, 'User Permission', permission.name)).for_value, 'orion');
      assert.equal((await readDoc(t, 'ToDo', todo.name)).reference_name, 'orion');
      assert.equal((await readDoc(t, 'File', file.name)).attached_to_name, 'orion');

      const read = (user: ActingUser, name: string) => actAs(t, user, { method: 'GET', url: resourceUrl(PROJECT, name) });
      assert.equal(dataOf(await read(visitor, 'orion')).title, 'shared');
      assert.equal(dataOf(await read(restricted, 'orion')).title, 'shared');
      assertError(await read(restricted, 'mercury'), 403, 'PermissionError');
      const listed = dataOf(await actAs(t, restricted, { method: 'GET', url: resourceUrl(PROJECT) + query({ limit_page_length: 0 }) })) as Json[];
      assert.deepEqual(
        listed.map((r) => r.name),
        ['orion'],
      );
    });

    test("a Single's Link and Dynamic Link values follow; a Dynamic Link to another DocType stays", async () => {
      await insertDoc(t, PROJECT, { name: 'vega', title: 'settings target' });
      const save = async (body: Json) => dataOf(await t.request({ method: 'PUT', url: resourceUrl(SETTINGS, SETTINGS), body }));
      await save({ main_project: 'vega', ref_type: PROJECT, ref_name: 'vega' });

      assert.equal(messageOf(await rename(PROJECT, 'vega', 'lyra')), 'lyra');
      let settings = await readDoc(t, SETTINGS, SETTINGS);
      assert.deepEqual([settings.main_project, settings.ref_type, settings.ref_name], ['lyra', PROJECT, 'lyra']);

      await insertDoc(t, OTHER, { name: 'deneb', title: 'other' });
      await insertDoc(t, PROJECT, { name: 'deneb', title: 'project' });
      await save({ main_project: 'lyra', ref_type: OTHER, ref_name: 'deneb' });
      assert.equal(messageOf(await rename(PROJECT, 'deneb', 'altair')), 'altair');
      settings = await readDoc(t, SETTINGS, SETTINGS);
      assert.deepEqual([settings.main_project, settings.ref_type, settings.ref_name], ['lyra', OTHER, 'deneb']);
    });

    test('after_rename hooks run once everything moved, with the document under both names', async () => {
      const seen: Json[] = [];
      t.site.hooks.on(PROJECT, 'after_rename', async ({ doc, before, ctx }, next) => {
        const versions = await ctx.q.all<Json>(
          ctx.dialect.builder.selectFrom('tabVersion').select('name').where('ref_doctype', '=', PROJECT).where('docname', '=', String(doc.name)).compile(),
        );
        seen.push({ from: before?.name, to: doc.name, title: doc.title, versions: versions.length });
        await next();
      });
      await insertDoc(t, PROJECT, { name: 'castor', title: 'twin' });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(PROJECT, 'castor'), body: { title: 'twins' } }));
      assert.equal(messageOf(await rename(PROJECT, 'castor', 'pollux')), 'pollux');
      assert.deepEqual(seen, [{ from: 'castor', to: 'pollux', title: 'twins', versions: 1 }]);
    });

    test('a refused rename moves nothing', async () => {
      await insertDoc(t, PROJECT, { name: 'sirius', title: 'taken' });
      await insertDoc(t, PROJECT, { name: 'rigel', title: 'keeps its history' });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(PROJECT, 'rigel'), body: { title: 'edited' } }));
      const share = await insertDoc(t, 'DocShare', { user: visitor.name, share_doctype: PROJECT, share_name: 'rigel', read: 1 });
      assertError(await rename(PROJECT, 'rigel', 'sirius'), 409, 'DuplicateEntryError');
      assert.equal((await versionNames(PROJECT, 'rigel')).length, 1);
      assert.equal((await readDoc(t, 'DocShare', share.name)).share_name, 'rigel');
    });
  });
}
