import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceRoutes } from '../../src/http/routes/resource-routes.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { createDocType, dataOf, insertDoc, readDoc, v2Url, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The v2 routes beyond list/read/insert/update/delete (docs/api.md "API v2"): DocType meta and
 * count, a document's copy, document methods, the DocType-controller shorthand, run_doc_method's
 * v2 form and the bulk routes, each with the refusals an attacker would try.
 */

const PART = 'Vtwo Part';
const ROW = 'Vtwo Row';
const SECRET = 'Vtwo Secret';

for (const dialect of testDialects()) {
  describe(`API v2 routes (${dialect.name})`, () => {
    let t: TestSite;
    let reader: ActingUser;
    let nobody: ActingUser;
    const part = (body: Json = {}) => insertDoc(t, PART, { title: 'p', qty: 1, ...body });
    const get = (url: string, user?: ActingUser) => (user ? actAs(t, user, { method: 'GET', url }) : t.request({ method: 'GET', url }));
    const post = (url: string, body: Json, user?: ActingUser) =>
      user ? actAs(t, user, { method: 'POST', url, body }) : t.request({ method: 'POST', url, body });

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Vtwo Reader');
      await createDocType(t, { name: ROW, istable: 1, fields: [{ fieldname: 'sku', label: 'SKU', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: PART,
        autoname: 'prompt',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'note', label: 'Note', fieldtype: 'Data' },
          { fieldname: 'rows', label: 'Rows', fieldtype: 'Table', options: ROW },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Vtwo Reader', read: 1, write: 0, create: 0, delete: 0 }],
      });
      await createDocType(t, { name: SECRET, fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data' }] });
      reader = await createUser(t, 'v2reader@example.com', { roles: ['Vtwo Reader'] });
      nobody = await createUser(t, 'v2nobody@example.com');
      t.site.methods.registerDocMethod(PART, 'label', async ({ doc, args }) => `${String(doc.title)}:${String(args.suffix ?? '')}`);
      t.site.methods.registerDocMethod(
        PART,
        'bump',
        async ({ ctx, services, doc, args }) =>
          (await services.documents.update(ctx, PART, String(doc.name), { qty: Number(doc.qty) + Number(args.by ?? 1) })).qty,
        { methods: ['POST'] },
      );
    });
    after(() => t.close());

    test('the route table names each served verb once, with :name parameters', () => {
      const lines = resourceRoutes().map((r) => `${r.method} ${r.url}`);
      for (const expected of [
        'GET /api/v2/document/:doctype/:name',
        'PATCH /api/v2/document/:doctype/:name',
        'GET /api/v2/document/:doctype/:name/copy',
        'POST /api/v2/document/:doctype/:name/method/:method',
        'GET /api/v2/doctype/:doctype/meta',
        'GET /api/v2/doctype/:doctype/count',
        'POST /api/v2/document/:doctype/bulk_delete',
        'GET /api/resource/:doctype/:name',
      ]) {
        assert.ok(lines.includes(expected), expected);
      }
      assert.equal(new Set(lines).size, lines.length);
    });

    describe('meta and count', () => {
      test('meta answers the DocType definition to a user who may read it; others and Guest 403, an unknown DocType 404', async () => {
        const meta = dataOf(await get(`/api/v2/doctype/${encodeURIComponent(PART)}/meta`, reader));
        assert.equal(meta.name, PART);
        assert.equal(meta.doctype, 'DocType');
        assert.deepEqual(
          meta.fields.map((f: Json) => f.fieldname),
          ['title', 'qty', 'note', 'rows'],
        );
        assertV2Error(await t.request({ method: 'GET', url: `/api/v2/doctype/${encodeURIComponent(PART)}/meta`, anonymous: true }), 403, 'PermissionError');
        // A deliberate difference from the reference (docs/api.md "API v2"): no definition for a DocType the caller may not read.
        assertV2Error(await get(`/api/v2/doctype/${encodeURIComponent(PART)}/meta`, nobody), 403, 'PermissionError');
        assertV2Error(await get('/api/v2/doctype/No%20Such%20Thing/meta'), 404, 'DoesNotExistError');
      });

      test('count takes filters and counts only what the caller may read', async () => {
        await part({ name: 'count-a', qty: 5 });
        await part({ name: 'count-b', qty: 6 });
        const url = `/api/v2/doctype/${encodeURIComponent(PART)}/count`;
        assert.equal(dataOf(await get(url + query({ filters: { name: ['like', 'count-%'] } }))), 2);
        assert.equal(
          dataOf(
            await get(
              url +
                query({
                  filters: [
                    ['name', 'like', 'count-%'],
                    ['qty', '>', 5],
                  ],
                }),
            ),
          ),
          1,
        );
        assert.equal(dataOf(await get(url + query({ filters: { name: ['like', 'count-%'] } }), reader)), 2);
        assertV2Error(await get(url, nobody), 403, 'PermissionError');
        assertV2Error(await get(url + query({ filters: 'nope' })), 417, 'DataError');
        assertV2Error(await get(url + query({ or_filters: '5' })), 417, 'DataError');
      });
    });

    describe('copy', () => {
      test('clears name, owner, timestamps and docstatus, on the document and its rows; stores nothing', async () => {
        await part({ name: 'copy-src', title: 'orig', rows: [{ sku: 'x1' }, { sku: 'x2' }] });
        const copy = dataOf(await get(`${v2Url(PART, 'copy-src')}/copy`));
        for (const key of ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'note']) assert.equal(key in copy, false, key);
        assert.equal(copy.title, 'orig');
        assert.equal(copy.doctype, PART);
        assert.deepEqual(
          copy.rows.map((r: Json) => r.sku),
          ['x1', 'x2'],
        );
        for (const row of copy.rows) for (const key of ['name', 'owner', 'creation', 'modified']) assert.equal(key in row, false, key);
        // Posting the copy back makes a new document.
        const again = dataOf(await post(v2Url(PART), { ...copy, name: 'copy-new' }));
        assert.deepEqual(
          again.rows.map((r: Json) => r.sku),
          ['x1', 'x2'],
        );
        assert.equal((await readDoc(t, PART, 'copy-src')).rows.length, 2);
      });

      test('a document the caller may not read is refused; a name holding / works', async () => {
        const secret = await insertDoc(t, SECRET, { code: 'hidden' });
        assertV2Error(await get(`${v2Url(SECRET, secret.name)}/copy`, reader), 403, 'PermissionError');
        await part({ name: 'a/b', title: 'slashed' });
        assert.equal(dataOf(await get(`/api/v2/document/${encodeURIComponent(PART)}/a/b/copy`)).title, 'slashed');
        assert.equal(dataOf(await get(`/api/v2/document/${encodeURIComponent(PART)}/a/b`)).title, 'slashed');
        const refused = await t.request({ method: 'PUT', url: `${v2Url(PART, 'copy-src')}/copy`, body: {} });
        assertV2Error(refused, 405, 'MethodNotAllowed');
        assert.equal(refused.headers.allow, 'GET');
      });
    });

    describe('document methods', () => {
      test('GET runs with read permission and answers data and the document (nulls kept) under docs', async () => {
        await part({ name: 'm-1', title: 'gear' });
        const res = await get(`${v2Url(PART, 'm-1')}/method/label?suffix=z`, reader);
        assert.equal(dataOf(res), 'gear:z');
        const docs = res.json().docs as Json[];
        assert.equal(docs.length, 1);
        assert.equal(docs[0].name, 'm-1');
        assert.equal(docs[0].note, null);
      });

      test('POST needs write permission; with it the change is stored', async () => {
        await part({ name: 'm-2', qty: 1 });
        assertV2Error(await post(`${v2Url(PART, 'm-2')}/method/bump`, { by: 2 }, reader), 403, 'PermissionError');
        assert.equal((await readDoc(t, PART, 'm-2')).qty, 1);
        const res = await post(`${v2Url(PART, 'm-2')}/method/bump`, { by: 2 });
        assert.equal(dataOf(res), 3);
        assert.equal(res.json().docs[0].qty, 3);
        assert.equal((await readDoc(t, PART, 'm-2')).qty, 3);
      });

      test('a method the verb may not use is 403, an unknown one 404, another verb 405; a name holding / works', async () => {
        await part({ name: 'm/3', title: 'slash' });
        assertV2Error(await get(`${v2Url(PART, 'm-1')}/method/bump`), 403, 'PermissionError');
        assertV2Error(await get(`${v2Url(PART, 'm-1')}/method/nope`), 404, 'DoesNotExistError');
        const put = await t.request({ method: 'PUT', url: `${v2Url(PART, 'm-1')}/method/label`, body: {} });
        assertV2Error(put, 405, 'MethodNotAllowed');
        assert.equal(put.headers.allow, 'GET, POST');
        assert.equal(dataOf(await get(`/api/v2/document/${encodeURIComponent(PART)}/m/3/method/label?suffix=q`)), 'slash:q');
        assertV2Error(await get(`${v2Url(SECRET, 'whatever')}/method/label`, reader), 403, 'PermissionError');
      });

      test('run_doc_method takes v2 form: document and kwargs; POST needs write permission', async () => {
        const doc = await part({ name: 'm-4', qty: 4 });
        const document = { doctype: PART, name: 'm-4', modified: doc.modified };
        const read = await get(`/api/v2/method/run_doc_method${query({ method: 'label', document, kwargs: { suffix: 'k' } })}`, reader);
        assert.equal(dataOf(read), 'p:k');
        assert.equal(read.json().docs[0].name, 'm-4');
        assertV2Error(await post('/api/v2/method/run_doc_method', { method: 'bump', document, kwargs: { by: 1 } }, reader), 403, 'PermissionError');
        assert.equal(dataOf(await post('/api/v2/method/run_doc_method', { method: 'bump', document, kwargs: { by: 1 } })), 5);
        const stale = await post('/api/v2/method/run_doc_method', { method: 'bump', document, kwargs: {} });
        assertV2Error(stale, 417, 'TimestampMismatchError');
      });
    });

    describe('DocType controller shorthand', () => {
      test('User/get_all_roles answers the assignable roles; unknown DocTypes and methods are 404', async () => {
        const roles = dataOf(await get('/api/v2/method/User/get_all_roles', nobody)) as unknown as string[];
        assert.ok(roles.includes('System Manager'));
        assert.ok(roles.includes('Vtwo Reader'));
        for (const automatic of ['Administrator', 'Guest', 'All']) assert.equal(roles.includes(automatic), false);
        assert.deepEqual([...roles].sort(), roles);
        assertV2Error(await get('/api/v2/method/User/no_such_method'), 404, 'DoesNotExistError');
        assertV2Error(await get('/api/v2/method/Nope/get_all_roles'), 404, 'DoesNotExistError');
        assertV2Error(await get('/api/v2/method/User/generate_keys'), 403, 'PermissionError');
        assertV2Error(await t.request({ method: 'GET', url: '/api/v2/method/User/get_all_roles', anonymous: true }), 403, 'PermissionError');
      });
    });

    describe('PATCH with child tables', () => {
      test('a table sent is the new table: named rows updated in place, new rows added, the rest removed; flags dropped', async () => {
        const doc = await part({ name: 'ct-1', rows: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }] });
        const [a, b] = doc.rows as Json[];
        const patched = dataOf(
          await t.request({
            method: 'PATCH',
            url: v2Url(PART, 'ct-1'),
            body: { flags: { ignore_permissions: true }, rows: [{ name: b.name, sku: 'B2' }, { sku: 'd' }] },
          }),
        );
        const rows = patched.rows as Json[];
        assert.deepEqual(
          rows.map((r) => r.sku),
          ['B2', 'd'],
        );
        assert.equal(rows[0].name, b.name);
        assert.equal(rows[0].creation, b.creation);
        assert.deepEqual(
          rows.map((r) => r.idx),
          [1, 2],
        );
        assert.equal(
          rows.some((r) => r.name === a.name),
          false,
        );
        const untouched = dataOf(await t.request({ method: 'PATCH', url: v2Url(PART, 'ct-1'), body: { title: 'only the title' } }));
        assert.deepEqual(
          (untouched.rows as Json[]).map((r) => r.sku),
          ['B2', 'd'],
        );
      });

      test('one child row by its own DocType: changed, parent saved, row answered; it cannot be moved; readers are refused', async () => {
        const doc = await part({ name: 'ct-2', rows: [{ sku: 'x' }, { sku: 'y' }] });
        const other = await part({ name: 'ct-3', rows: [] });
        const row = (doc.rows as Json[])[1];
        const res = dataOf(await t.request({ method: 'PATCH', url: v2Url(ROW, row.name), body: { sku: 'y2', parent: other.name, parentfield: 'rows' } }));
        assert.equal(res.name, row.name);
        assert.equal(res.sku, 'y2');
        assert.equal(res.parent, 'ct-2');
        assert.deepEqual(
          ((await readDoc(t, PART, 'ct-2')).rows as Json[]).map((r) => r.sku),
          ['x', 'y2'],
        );
        assert.deepEqual((await readDoc(t, PART, other.name)).rows ?? [], []);
        assertV2Error(await actAs(t, reader, { method: 'PATCH', url: v2Url(ROW, row.name), body: { sku: 'no' } }), 403, 'PermissionError');
        assertV2Error(await t.request({ method: 'PATCH', url: v2Url(ROW, 'no-such-row'), body: { sku: 'no' } }), 404, 'DoesNotExistError');
        assert.equal(((await readDoc(t, PART, 'ct-2')).rows as Json[])[1].sku, 'y2');
      });
    });

    describe('bulk routes', () => {
      test('bulk_delete deletes what it may and reports the rest, each item on its own', async () => {
        await part({ name: 'bd-1' });
        await part({ name: 'bd-2' });
        const res = dataOf(await post(`${v2Url(PART)}/bulk_delete`, { names: ['bd-1', 'missing', 'bd-2', 7, { x: 1 }] }));
        assert.deepEqual(res.deleted, ['bd-1', 'bd-2']);
        assert.deepEqual(
          res.failed.map((f: Json) => f.name),
          ['missing', 7, { x: 1 }],
        );
        assert.ok(res.failed.every((f: Json) => typeof f.error === 'string' && f.error !== ''));
        assert.deepEqual([res.total, res.success_count, res.failure_count], [5, 2, 3]);
        assertV2Error(await get(v2Url(PART, 'bd-1')), 404, 'DoesNotExistError');
      });

      test('a caller without delete permission deletes nothing; names not a list is 417', async () => {
        await part({ name: 'bd-3' });
        const res = dataOf(await post(`${v2Url(PART)}/bulk_delete`, { names: ['bd-3'] }, reader));
        assert.deepEqual(res.deleted, []);
        assert.equal(res.failure_count, 1);
        assert.equal((await readDoc(t, PART, 'bd-3')).name, 'bd-3');
        assertV2Error(await post(`${v2Url(PART)}/bulk_delete`, { names: 'bd-3' }), 417, 'DataError');
        assertV2Error(await post(`${v2Url(PART)}/bulk_delete`, { names: Array.from({ length: 201 }, (_, i) => `n${i}`) }), 417, 'DataError');
      });

      test('bulk_update saves each item, reports refusals, and answers the saved documents under docs', async () => {
        await part({ name: 'bu-1', qty: 1 });
        await part({ name: 'bu-2', qty: 1 });
        const res = await post(`${v2Url(PART)}/bulk_update`, { docs: [{ name: 'bu-1', qty: 10 }, { name: 'bu-2', title: '' }, { qty: 3 }] });
        const data = dataOf(res);
        assert.deepEqual(data.updated, ['bu-1']);
        assert.deepEqual(
          data.failed.map((f: Json) => f.name),
          ['bu-2', null],
        );
        assert.equal(res.json().docs[0].qty, 10);
        assert.equal((await readDoc(t, PART, 'bu-1')).qty, 10);
        assert.equal((await readDoc(t, PART, 'bu-2')).title, 'p');
      });

      test('across DocTypes: /api/v2/method/bulk_delete and bulk_update', async () => {
        await part({ name: 'ba-1', qty: 1 });
        const secret = await insertDoc(t, SECRET, { code: 'c' });
        const upd = dataOf(
          await post('/api/v2/method/bulk_update', {
            docs: [
              { doctype: PART, name: 'ba-1', qty: 2 },
              { doctype: SECRET, name: secret.name, code: 'd' },
            ],
          }),
        );
        assert.deepEqual(upd.updated, [
          { doctype: PART, name: 'ba-1' },
          { doctype: SECRET, name: secret.name },
        ]);
        const refused = dataOf(await post('/api/v2/method/bulk_delete', { docs: [{ doctype: SECRET, name: secret.name }] }, reader));
        assert.equal(refused.failure_count, 1);
        const del = dataOf(
          await post('/api/v2/method/bulk_delete', { docs: [{ doctype: PART, name: 'ba-1' }, { doctype: SECRET, name: secret.name }, { name: 'x' }] }),
        );
        assert.equal(del.success_count, 2);
        assert.deepEqual(
          del.failed.map((f: Json) => f.doctype),
          [null],
        );
        assertV2Error(await post('/api/v2/method/bulk_delete', { docs: {} }), 417, 'DataError');
      });

      test('GET and PUT on …/bulk_delete reach a document of that name, as in the reference', async () => {
        await part({ name: 'bulk_delete', title: 'odd name' });
        assert.equal(dataOf(await get(v2Url(PART, 'bulk_delete'))).title, 'odd name');
        assert.equal(dataOf(await t.request({ method: 'PUT', url: v2Url(PART, 'bulk_delete'), body: { qty: 9 } })).qty, 9);
      });
    });
  });
}
