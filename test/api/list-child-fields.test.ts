import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, resourceUrl, v2Url, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Child-table fields in lists: `items.sku` gives one output row per child row; the nested form
 * `{"items": ["sku", "qty"]}` gives each parent row once with its rows as an array (ordered by
 * idx); listing the child DocType itself (`parent=<DocType>`) shows only rows of parents the
 * caller may read.
 */

const LINE = 'Nest Line';
const ORDER = 'Nest Order';
const GET_LIST = '/api/method/frappe.client.get_list';

for (const dialect of testDialects()) {
  describe(`child-table fields in lists (${dialect.name})`, () => {
    let t: TestSite;
    let owner: ActingUser;
    let other: ActingUser;
    const names: Record<string, string> = {};

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Nest Clerk');
      owner = await createUser(t, 'nest-owner@example.com', { roles: ['Nest Clerk'] });
      other = await createUser(t, 'nest-other@example.com', { roles: ['Nest Clerk'] });
      await createDocType(t, {
        name: LINE,
        istable: 1,
        fields: [
          { fieldname: 'sku', label: 'SKU', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'cost', label: 'Cost', fieldtype: 'Currency', permlevel: 1 },
        ],
      });
      await createDocType(t, {
        name: ORDER,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'items', label: 'Items', fieldtype: 'Table', options: LINE },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'System Manager', permlevel: 1 }, { role: 'Nest Clerk', if_owner: 1 }],
      });
      const insert = async (who: ActingUser, body: Json) => dataOf(await actAs(t, who, { method: 'POST', url: resourceUrl(ORDER), body })).name as string;
      names.a = await insert(owner, {
        title: 'A',
        items: [
          { sku: 'a1', qty: 1, cost: 5 },
          { sku: 'a2', qty: 2 },
        ],
      });
      names.b = await insert(owner, { title: 'B', items: [] });
      names.c = await insert(other, { title: 'C', items: [{ sku: 'c1', qty: 3 }] });
      // The owner may not write the permlevel-1 cost; the Administrator sets it.
      dataOf(
        await t.request({
          method: 'PUT',
          url: resourceUrl(ORDER, names.a),
          body: {
            items: [
              { sku: 'a1', qty: 1, cost: 5 },
              { sku: 'a2', qty: 2 },
            ],
          },
        }),
      );
    });
    after(() => t.close());

    const list = (params: Json, who?: ActingUser) =>
      who ? actAs(t, who, { method: 'GET', url: resourceUrl(ORDER) + query(params) }) : t.request({ method: 'GET', url: resourceUrl(ORDER) + query(params) });

    test('`table.field` gives one row per child row, under the child field’s own name', async () => {
      const rows = dataOf(await list({ fields: ['title', 'items.sku'], order_by: 'title asc, items.idx asc', limit_page_length: 0 }));
      const pairs = rows.map((r: Json) => [r.title, r.sku]);
      // A parent without rows still appears once (left join), with null.
      assert.deepEqual(pairs, [
        ['A', 'a1'],
        ['A', 'a2'],
        ['B', null],
        ['C', 'c1'],
      ]);
    });

    test('`table.field` as a filter keeps parents having a matching row', async () => {
      const rows = dataOf(await list({ fields: ['name'], filters: [['items.sku', '=', 'c1']] }));
      assert.deepEqual(rows, [{ name: names.c }]);
    });

    test('the nested form gives each parent once with its rows ordered by idx', async () => {
      const rows = dataOf(await list({ fields: ['name', 'title', { items: ['sku', 'qty'] }], order_by: 'title asc' }));
      assert.deepEqual(rows, [
        {
          name: names.a,
          title: 'A',
          items: [
            { sku: 'a1', qty: 1 },
            { sku: 'a2', qty: 2 },
          ],
        },
        { name: names.b, title: 'B', items: [] },
        { name: names.c, title: 'C', items: [{ sku: 'c1', qty: 3 }] },
      ]);
    });

    test('the nested form works without `name` selected, with aliases, and through get_list and v2', async () => {
      const v1 = dataOf(await list({ fields: ['title', { items: ['sku as code'] }], filters: { title: 'A' } }));
      assert.deepEqual(v1, [{ title: 'A', items: [{ code: 'a1' }, { code: 'a2' }] }]);
      const rpc = await t.request({ method: 'POST', url: GET_LIST, body: { doctype: ORDER, fields: ['title', { items: ['qty'] }], filters: { title: 'C' } } });
      assert.equal(rpc.statusCode, 200, rpc.body);
      assert.deepEqual(rpc.json().message, [{ title: 'C', items: [{ qty: 3 }] }]);
      const v2 = await t.request({ method: 'GET', url: v2Url(ORDER) + query({ fields: ['title', { items: ['sku'] }], order_by: 'title asc', limit: 1 }) });
      assert.equal(v2.statusCode, 200, v2.body);
      assert.deepEqual(v2.json(), { data: [{ title: 'A', items: [{ sku: 'a1' }, { sku: 'a2' }] }], has_next_page: true });
    });

    test('the nested form with as_dict=0 and in an unlimited (streamed) list', async () => {
      const arrays = dataOf(await list({ fields: ['title', { items: ['sku'] }], order_by: 'title asc', as_dict: 0 }));
      assert.deepEqual(arrays, [
        ['A', [['a1'], ['a2']]],
        ['B', []],
        ['C', [['c1']]],
      ]);
      const all = dataOf(await list({ fields: ['title', { items: ['sku'] }], order_by: 'title asc', limit_page_length: 0 }));
      assert.deepEqual(
        all.map((r: Json) => r.items.length),
        [2, 0, 1],
      );
    });

    test('the nested form follows the parent’s permissions: own parents only, unreadable child fields dropped', async () => {
      const rows = dataOf(await list({ fields: ['title', { items: ['sku', 'cost'] }], order_by: 'title asc' }, owner));
      assert.deepEqual(rows, [
        { title: 'A', items: [{ sku: 'a1' }, { sku: 'a2' }] },
        { title: 'B', items: [] },
      ]);
      const admin = dataOf(await list({ fields: ['title', { items: ['cost'] }], filters: { title: 'A' } }));
      assert.deepEqual(admin, [{ title: 'A', items: [{ cost: 5 }, { cost: 0 }] }]);
    });

    test('bad nested forms are 417 DataError', async () => {
      assertError(await list({ fields: [{ title: ['x'] }] }), 417, 'DataError');
      assertError(await list({ fields: [{ no_such: ['sku'] }] }), 417, 'DataError');
      assertError(await list({ fields: [{ items: ['no_such'] }] }), 417, 'DataError');
      assertError(await list({ fields: [{ items: ['count(*)'] }] }), 417, 'DataError');
      assertError(await list({ fields: [{ items: [{ sku: ['x'] }] }] }), 417, 'DataError');
      assertError(await list({ fields: ['title', { items: ['sku'] }], group_by: 'title' }), 417, 'DataError');
    });

    describe('listing the child DocType through a restricted parent', () => {
      const lines = (who: ActingUser | undefined, params: Json = {}) =>
        actAs(t, who, { method: 'GET', url: resourceUrl(LINE) + query({ parent: ORDER, fields: ['sku', 'parent'], order_by: 'sku asc', ...params }) });

      test('an if_owner user sees only rows of their own parents', async () => {
        const rows = dataOf(await lines(owner));
        assert.deepEqual(rows, [
          { sku: 'a1', parent: names.a },
          { sku: 'a2', parent: names.a },
        ]);
        assert.deepEqual(dataOf(await lines(other)), [{ sku: 'c1', parent: names.c }]);
      });

      test('their filters cannot reach other parents’ rows', async () => {
        assert.deepEqual(dataOf(await lines(owner, { filters: { parent: names.c } })), []);
        const count = await actAs(t, owner, { method: 'POST', url: '/api/method/frappe.client.get_count', body: { doctype: LINE, parent: ORDER } });
        assert.equal(count.statusCode, 200, count.body);
        assert.equal(count.json().message, 2);
      });

      test('the Administrator sees every row; Guest is refused', async () => {
        const all = dataOf(await t.request({ method: 'GET', url: resourceUrl(LINE) + query({ parent: ORDER, fields: ['sku'], order_by: 'sku asc' }) }));
        assert.deepEqual(
          all.map((r: Json) => r.sku),
          ['a1', 'a2', 'c1'],
        );
        assertError(await lines(undefined), 403, 'PermissionError');
      });

      test('a share ORs the shared parent back in', async () => {
        const shared = await t.request({
          method: 'POST',
          url: resourceUrl('DocShare'),
          body: { user: other.name, share_doctype: ORDER, share_name: names.a, read: 1 },
        });
        assert.equal(shared.statusCode, 200, shared.body);
        assert.deepEqual(
          (dataOf(await lines(other)) as Json[]).map((r) => r.sku),
          ['a1', 'a2', 'c1'],
        );
      });
    });
  });
}
