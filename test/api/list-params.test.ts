import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, v2Url, type Json } from '../helpers/document-api.js';
import { query } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * List parameters over HTTP on both engines: group_by with aggregates, or_filters, order_by with
 * several keys (and refused order_by text, which never reaches SQL), paging with limit_start and
 * limit_page_length, and `link.field` columns and filters.
 */

const TEAM = 'Param Team';
const TASK = 'Param Task';

for (const dialect of testDialects()) {
  describe(`list parameters over HTTP (${dialect.name})`, () => {
    let t: TestSite;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: TEAM,
        autoname: 'field:code',
        fields: [
          { fieldname: 'code', label: 'Code', fieldtype: 'Data' },
          { fieldname: 'city', label: 'City', fieldtype: 'Data' },
        ],
      });
      await createDocType(t, {
        name: TASK,
        autoname: 'field:ref',
        fields: [
          { fieldname: 'ref', label: 'Ref', fieldtype: 'Data' },
          { fieldname: 'status', label: 'Status', fieldtype: 'Data' },
          { fieldname: 'points', label: 'Points', fieldtype: 'Int' },
          { fieldname: 'team', label: 'Team', fieldtype: 'Link', options: TEAM },
        ],
      });
      await insertDoc(t, TEAM, { code: 'red', city: 'Oslo' });
      await insertDoc(t, TEAM, { code: 'blue', city: 'Rome' });
      const tasks: Array<[string, string, number, string | null]> = [
        ['t1', 'Open', 3, 'red'],
        ['t2', 'Open', 1, 'blue'],
        ['t3', 'Closed', 5, 'red'],
        ['t4', 'Closed', 2, null],
        ['t5', 'Open', 3, 'blue'],
      ];
      for (const [ref, status, points, team] of tasks) await insertDoc(t, TASK, { ref, status, points, team });
    });
    after(() => t.close());

    const list = (params: Json) => t.request({ method: 'GET', url: resourceUrl(TASK) + query(params) });
    const refs = async (params: Json) => dataOf(await list({ fields: ['name'], ...params })).map((r: Json) => r.name);

    test('group_by with count and sum gives one row per group', async () => {
      const rows = dataOf(await list({ fields: ['status', 'count(*) as n', 'sum(points) as total'], group_by: 'status', order_by: 'status asc' }));
      assert.deepEqual(rows, [
        { status: 'Closed', n: 2, total: 7 },
        { status: 'Open', n: 3, total: 7 },
      ]);
      assertError(await list({ fields: ['status', 'points'], group_by: 'status' }), 417, 'DataError');
      assertError(await list({ fields: ['status'], group_by: 'status; drop table x' }), 417, 'DataError');
    });

    test('or_filters are ORed among themselves and ANDed with filters', async () => {
      assert.deepEqual(
        await refs({
          or_filters: [
            ['points', '=', 5],
            ['team', '=', 'blue'],
          ],
          order_by: 'name asc',
        }),
        ['t2', 't3', 't5'],
      );
      assert.deepEqual(await refs({ filters: { status: 'Open' }, or_filters: { points: 3, team: 'blue' }, order_by: 'name asc' }), ['t1', 't2', 't5']);
      assert.deepEqual(await refs({ filters: { status: 'Closed' }, or_filters: [['points', '>', 4]] }), ['t3']);
    });

    test('order_by with several keys and directions', async () => {
      assert.deepEqual(await refs({ order_by: 'points desc, name asc' }), ['t3', 't1', 't5', 't4', 't2']);
      assert.deepEqual(await refs({ order_by: 'status asc, points asc' }), ['t4', 't3', 't2', 't1', 't5']);
      // v2: a term without a direction is descending.
      const v2 = await t.request({ method: 'GET', url: v2Url(TASK) + query({ fields: ['name'], order_by: 'points, name' }) });
      assert.deepEqual(
        v2.json().data.map((r: Json) => r.name),
        ['t3', 't5', 't1', 't4', 't2'],
      );
    });

    test('bad order_by is a 417 and never reaches SQL', async () => {
      for (const order_by of [
        'name; drop table `tabParam Task`',
        'name desc; delete from "tabParam Task"',
        '(select 1)',
        'sleep(1)',
        'name descending',
        'no_such_field',
        'name as x',
      ]) {
        assertError(await list({ order_by }), 417, 'DataError');
        const rpc = await t.request({ method: 'POST', url: '/api/method/frappe.client.get_list', body: { doctype: TASK, order_by } });
        assertError(rpc, 417, 'DataError');
      }
      assert.equal((await refs({ limit_page_length: 0 })).length, 5);
    });

    test('limit_start and limit_page_length page through without overlap', async () => {
      const pages: string[][] = [];
      for (let start = 0; start < 6; start += 2) pages.push(await refs({ order_by: 'name asc', limit_start: start, limit_page_length: 2 }));
      assert.deepEqual(pages, [['t1', 't2'], ['t3', 't4'], ['t5']]);
      assert.deepEqual(await refs({ order_by: 'name asc', limit: 1 }), ['t1']);
      assert.deepEqual(await refs({ order_by: 'name asc', limit_start: 4, limit_page_length: 0 }), ['t5']);
      assert.deepEqual(await refs({ limit_start: 10 }), []);
      const v2 = await t.request({ method: 'GET', url: v2Url(TASK) + query({ fields: ['name'], order_by: 'name asc', start: 3, limit: 1 }) });
      assert.deepEqual(v2.json(), { data: [{ name: 't4' }], has_next_page: true });
    });

    test('`link.field` columns come back under the target field’s name and can be filtered on', async () => {
      const rows = dataOf(await list({ fields: ['name', 'team.city', 'team.code as team_code'], order_by: 'name asc' }));
      assert.deepEqual(rows[0], { name: 't1', city: 'Oslo', team_code: 'red' });
      assert.deepEqual(rows[3], { name: 't4', city: null, team_code: null });
      assert.deepEqual(await refs({ filters: [['team.city', '=', 'Rome']], order_by: 'name asc' }), ['t2', 't5']);
      assert.deepEqual(await refs({ filters: { 'team.city': ['like', 'O%'] }, order_by: 'team.city asc, name asc' }), ['t1', 't3']);
      assertError(await list({ fields: ['team.no_such'] }), 417, 'DataError');
      assertError(await list({ filters: [['status.city', '=', 'x']] }), 417, 'DataError');
    });
  });
}
