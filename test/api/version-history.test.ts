import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Version history (reference §8): a save of a document whose DocType has track_changes writes one
 * Version with the field and child-row diff; inserts and saves that change nothing write none.
 * Versions are readable by System Managers and by whoever may read the document they describe.
 */

for (const dialect of testDialects()) {
  describe(`version history (${dialect.name})`, () => {
    let t: TestSite;
    const LINE = uniqueDocTypeName('VH Line');
    const TRACKED = uniqueDocTypeName('VH Tracked');
    const PLAIN = uniqueDocTypeName('VH Plain');
    let writer: ActingUser;
    let outsider: ActingUser;
    let manager: ActingUser;

    /** The Versions of one document, oldest first, with their diffs parsed (as the Administrator). */
    async function versionsOf(doctype: string, name: string): Promise<Json[]> {
      const url =
        resourceUrl('Version') +
        query({
          fields: ['name', 'ref_doctype', 'docname', 'data', 'owner'],
          filters: [
            ['ref_doctype', '=', doctype],
            ['docname', '=', name],
          ],
          order_by: 'creation asc',
          limit_page_length: 0,
        });
      return (dataOf(await t.request({ method: 'GET', url })) as Json[]).map((v) => ({ ...v, data: JSON.parse(v.data) }));
    }

    async function save(name: string, body: Json, user?: ActingUser): Promise<Json> {
      const request = { method: 'PUT' as const, url: resourceUrl(TRACKED, name), body };
      return dataOf(user ? await actAs(t, user, request) : await t.request(request));
    }

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'VH Writer');
      writer = await createUser(t, 'vh-writer@example.com', { roles: ['VH Writer'] });
      outsider = await createUser(t, 'vh-outsider@example.com');
      manager = await createUser(t, 'vh-manager@example.com', { roles: ['System Manager'] });
      await createDocType(t, {
        name: LINE,
        istable: 1,
        fields: [
          { fieldname: 'item', label: 'Item', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        ],
      });
      await createDocType(t, {
        name: TRACKED,
        track_changes: 1,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Float' },
          { fieldname: 'due', label: 'Due', fieldtype: 'Datetime' },
          { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: LINE },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'VH Writer', create: 0, delete: 0 }],
      });
      await createDocType(t, {
        name: PLAIN,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
      });
    });
    after(() => t.close());

    test('an insert writes no Version', async () => {
      const doc = await insertDoc(t, TRACKED, { title: 'new', lines: [{ item: 'a', qty: 1 }] });
      assert.deepEqual(await versionsOf(TRACKED, doc.name), []);
    });

    test('a save writes one Version with the changed fields as [field, old, new], in the form clients read', async () => {
      const doc = await insertDoc(t, TRACKED, { title: 'first', amount: 1.5, due: '2031-01-02 03:04:05' });
      await save(doc.name, { title: 'second', amount: 2.25 });
      const versions = await versionsOf(TRACKED, doc.name);
      assert.equal(versions.length, 1);
      assert.deepEqual(versions[0].data, {
        added: [],
        changed: [
          ['title', 'first', 'second'],
          ['amount', 1.5, 2.25],
        ],
        removed: [],
        row_changed: [],
      });
    });

    test('a save that changes nothing, or sends the same values in another form, writes no Version', async () => {
      const doc = await insertDoc(t, TRACKED, { title: 'same', due: '2031-01-02 03:04:05', lines: [{ item: 'a', qty: 1 }] });
      await save(doc.name, {});
      await save(doc.name, { title: 'same', due: '2031-01-02T03:04:05', lines: doc.lines });
      assert.deepEqual(await versionsOf(TRACKED, doc.name), []);
    });

    test('child rows: added and removed rows whole, changed rows as [table, index, row name, changes]', async () => {
      const doc = await insertDoc(t, TRACKED, {
        title: 'rows',
        lines: [
          { item: 'keep', qty: 1 },
          { item: 'drop', qty: 2 },
        ],
      });
      const [keep, drop] = doc.lines as Json[];
      await save(doc.name, {
        lines: [
          { item: 'new', qty: 9 },
          { ...keep, qty: 5 },
        ],
      });
      const [version] = await versionsOf(TRACKED, doc.name);
      assert.deepEqual(version.data.changed, []);
      assert.deepEqual(version.data.row_changed, [['lines', 1, keep.name, [['qty', 1, 5]]]]);
      assert.deepEqual(
        version.data.added.map(([table, row]: [string, Json]) => [table, row.item, row.qty, row.doctype, typeof row.name]),
        [['lines', 'new', 9, LINE, 'string']],
      );
      assert.deepEqual(
        version.data.removed.map(([table, row]: [string, Json]) => [table, row.name, row.item, row.qty]),
        [['lines', drop.name, 'drop', 2]],
      );
    });

    test('every save writes its own Version', async () => {
      const doc = await insertDoc(t, TRACKED, { title: 'v0' });
      await save(doc.name, { title: 'v1' });
      await save(doc.name, { title: 'v2' });
      const versions = await versionsOf(TRACKED, doc.name);
      assert.deepEqual(
        versions.map((v) => v.data.changed),
        [[['title', 'v0', 'v1']], [['title', 'v1', 'v2']]],
      );
    });

    test('a DocType without track_changes writes no Version', async () => {
      const doc = await insertDoc(t, PLAIN, { title: 'x' });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(PLAIN, doc.name), body: { title: 'y' } }));
      assert.deepEqual(await versionsOf(PLAIN, doc.name), []);
    });

    test('a built-in tracked DocType (ToDo) keeps history too', async () => {
      const todo = await insertDoc(t, 'ToDo', { description: 'track me' });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('ToDo', todo.name), body: { priority: 'High' } }));
      const [version] = await versionsOf('ToDo', todo.name);
      assert.deepEqual(version.data.changed, [['priority', 'Medium', 'High']]);
    });

    describe('permissions', () => {
      let docName: string;
      let versionName: string;
      let todoVersion: string;
      const listAs = async (user: ActingUser): Promise<string[]> =>
        (dataOf(await actAs(t, user, { method: 'GET', url: resourceUrl('Version') + query({ limit_page_length: 0 }) })) as Json[]).map((v) => v.name);

      before(async () => {
        docName = (await insertDoc(t, TRACKED, { title: 'guarded' })).name;
        await save(docName, { title: 'changed by the writer' }, writer);
        versionName = (await versionsOf(TRACKED, docName))[0].name;
        const todo = await insertDoc(t, 'ToDo', { description: 'for the writer', allocated_to: writer.name });
        dataOf(await t.request({ method: 'PUT', url: resourceUrl('ToDo', todo.name), body: { priority: 'Low' } }));
        todoVersion = (await versionsOf('ToDo', todo.name))[0].name;
      });

      test('a user without any right on Version still writes one, as its owner', async () => {
        assert.equal((await versionsOf(TRACKED, docName))[0].owner, writer.name);
      });

      test('whoever may read the document reads its Versions and lists them', async () => {
        const version = dataOf(await actAs(t, writer, { method: 'GET', url: resourceUrl('Version', versionName) }));
        assert.equal(version.docname, docName);
        assert.ok((await listAs(writer)).includes(versionName));
      });

      test('a user who may not read the document may neither read nor list its Versions', async () => {
        assertError(await actAs(t, outsider, { method: 'GET', url: resourceUrl('Version', versionName) }), 403, 'PermissionError');
        assert.ok(!(await listAs(outsider)).includes(versionName));
      });

      test('a Version of a ToDo reads like the ToDo: its assignee may, others may not', async () => {
        const read = await actAs(t, writer, { method: 'GET', url: resourceUrl('Version', todoVersion) });
        assert.equal(read.statusCode, 200, read.body);
        assertError(await actAs(t, outsider, { method: 'GET', url: resourceUrl('Version', todoVersion) }), 403, 'PermissionError');
      });

      test('lists leave out Versions of DocTypes the user reads only in part (ToDo for a plain user)', async () => {
        assert.ok(!(await listAs(writer)).includes(todoVersion));
      });

      test('a System Manager reads and lists every Version', async () => {
        const listed = await listAs(manager);
        assert.ok(listed.includes(versionName) && listed.includes(todoVersion));
        assert.equal(dataOf(await actAs(t, manager, { method: 'GET', url: resourceUrl('Version', todoVersion) })).ref_doctype, 'ToDo');
      });

      test('nobody but the Administrator may write or delete a Version', async () => {
        const url = resourceUrl('Version', versionName);
        assertError(await actAs(t, manager, { method: 'PUT', url, body: { docname: 'x' } }), 403, 'PermissionError');
        assertError(await actAs(t, writer, { method: 'DELETE', url }), 403, 'PermissionError');
        const forged = { ref_doctype: TRACKED, docname: docName };
        assertError(await actAs(t, manager, { method: 'POST', url: resourceUrl('Version'), body: forged }), 403, 'PermissionError');
        assert.equal((await readDoc(t, 'Version', versionName)).docname, docName);
      });

      test('a Version is hidden from readers of the document who may not read every field level', async () => {
        const guarded = uniqueDocTypeName('VH Levels');
        await createRole(t, 'VH Payroll');
        const payroll = await createUser(t, 'vh-payroll@example.com', { roles: ['VH Writer', 'VH Payroll'] });
        await createDocType(t, {
          name: guarded,
          track_changes: 1,
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
            { fieldname: 'salary', label: 'Salary', fieldtype: 'Currency', permlevel: 1 },
          ],
          permissions: [{ role: 'VH Writer' }, { role: 'VH Payroll', permlevel: 1 }],
        });
        const doc = await insertDoc(t, guarded, { title: 'pay', salary: 100 });
        dataOf(await t.request({ method: 'PUT', url: resourceUrl(guarded, doc.name), body: { salary: 250 } }));
        const [version] = await versionsOf(guarded, doc.name);
        assert.deepEqual(version.data.changed, [['salary', 100, 250]]);

        // The writer reads the document (without the salary) but not the diff that holds it.
        const seen = dataOf(await actAs(t, writer, { method: 'GET', url: resourceUrl(guarded, doc.name) }));
        assert.equal(seen.salary, undefined);
        assertError(await actAs(t, writer, { method: 'GET', url: resourceUrl('Version', version.name) }), 403, 'PermissionError');
        assert.ok(!(await listAs(writer)).includes(version.name));
        // A reader of both levels sees it.
        assert.equal(dataOf(await actAs(t, payroll, { method: 'GET', url: resourceUrl('Version', version.name) })).docname, doc.name);
        assert.ok((await listAs(payroll)).includes(version.name));
      });

      test('Guest may not list Versions', async () => {
        assertError(await t.request({ method: 'GET', url: resourceUrl('Version'), anonymous: true }), 403, 'PermissionError');
      });
    });
  });
}
