import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, resourceUrl, serverMessages, storedCount, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Reports over HTTP (docs/reports.md): Report Builder reports run by query_report.run with the
 * reference's answer, under the caller's row and field permissions, with group-by aggregates and a
 * chart; Query and Script reports refused; get_script; the list sidebar's group-by counts.
 */

const CLAIM = 'Expense Claim';
const LINE = 'Expense Line';
const RUN = 'frappe.desk.query_report.run';

for (const dialect of testDialects()) {
  describe(`reports (${dialect.name})`, () => {
    let t: TestSite;
    let alice: ActingUser;
    let bob: ActingUser;
    let reader: ActingUser;

    const saveReport = async (name: string, json: Json, extra: Json = {}) =>
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/Report',
          body: { report_name: name, ref_doctype: CLAIM, report_type: 'Report Builder', json: JSON.stringify(json), ...extra },
        }),
      );
    const run = (name: string, user?: ActingUser, filters?: unknown) =>
      callMethod(t, 'GET', RUN, { report_name: name, ...(filters === undefined ? {} : { filters }) }, user?.auth);

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Expense User');
      await createRole(t, 'Expense Owner');
      await createRole(t, 'Expense Reader');
      alice = await createUser(t, 'alice@reports.test', { roles: ['Expense User'] });
      bob = await createUser(t, 'bob@reports.test', { roles: ['Expense Owner'] });
      reader = await createUser(t, 'reader@reports.test', { roles: ['Expense Reader'] });
      await createDocType(t, {
        name: LINE,
        istable: 1,
        fields: [
          { fieldname: 'item', label: 'Item', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        ],
      });
      const none = { write: 0, create: 0, delete: 0, submit: 0, cancel: 0, amend: 0, report: 0, export: 0, import: 0, share: 0, print: 0, email: 0 };
      await createDocType(t, {
        name: CLAIM,
        autoname: 'EC-.#####',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'category', label: 'Category', fieldtype: 'Select', options: '\nTravel\nFood' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Int' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', permlevel: 1 },
          { fieldname: 'items', label: 'Items', fieldtype: 'Table', options: LINE },
        ],
        permissions: [
          { role: 'System Manager' },
          { role: 'Expense User', ...none, read: 1, write: 1, create: 1, report: 1 },
          { role: 'Expense Owner', ...none, read: 1, write: 1, create: 1, report: 1, if_owner: 1 },
          { role: 'Expense Reader', ...none, read: 1 },
        ],
      });
      const claims: Array<[ActingUser | undefined, Json]> = [
        [undefined, { title: 'Flight', category: 'Travel', amount: 300, secret: 's1', items: [{ item: 'ticket', qty: 1 }] }],
        [undefined, { title: 'Hotel', category: 'Travel', amount: 200, secret: 's2' }],
        [undefined, { title: 'Lunch', category: 'Food', amount: 20, secret: 's3' }],
        [bob, { title: 'Dinner', category: 'Food', amount: 40 }],
        [bob, { title: 'Taxi', amount: 15 }],
      ];
      for (const [user, body] of claims) {
        const res = user
          ? await actAs(t, user, { method: 'POST', url: resourceUrl(CLAIM), body })
          : await t.request({ method: 'POST', url: resourceUrl(CLAIM), body });
        dataOf(res);
      }
      await saveReport('Claims by Amount', {
        fields: [
          ['title', CLAIM],
          ['category', CLAIM],
          ['amount', CLAIM],
          ['secret', CLAIM],
        ],
        filters: [[CLAIM, 'amount', '>', 10, false]],
        order_by: '`tabExpense Claim`.`amount` desc',
        add_totals_row: 0,
      });
      await saveReport('Spend by Category', {
        fields: [
          ['category', CLAIM],
          ['amount', CLAIM],
        ],
        filters: [],
        group_by: { group_by: '`tabExpense Claim`.`category`', aggregate_function: 'sum', aggregate_on: 'amount' },
      });
    });
    after(() => t.close());

    test('a Report Builder report answers the reference shape: columns, result in the saved order, no message, no chart', async () => {
      const answer = messageOf(await run('Claims by Amount'));
      assert.deepEqual(Object.keys(answer).sort(), [
        'add_total_row',
        'chart',
        'columns',
        'execution_time',
        'message',
        'report_summary',
        'result',
        'skip_total_row',
        'status',
      ]);
      assert.deepEqual(answer.columns, [
        { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
        { fieldname: 'category', label: 'Category', fieldtype: 'Select', options: '\nTravel\nFood' },
        { fieldname: 'amount', label: 'Amount', fieldtype: 'Int' },
        { fieldname: 'secret', label: 'Secret', fieldtype: 'Data' },
      ]);
      assert.deepEqual(
        answer.result.map((r: Json) => [r.title, r.amount, r.secret]),
        [
          ['Flight', 300, 's1'],
          ['Hotel', 200, 's2'],
          ['Dinner', 40, null],
          ['Lunch', 20, 's3'],
          ['Taxi', 15, null],
        ],
      );
      assert.equal(answer.message, null);
      assert.equal(answer.chart, null);
      assert.equal(answer.add_total_row, 0);
    });

    test('the caller’s field levels apply: a column above their permlevel is not answered', async () => {
      const answer = messageOf(await run('Claims by Amount', alice));
      assert.deepEqual(
        answer.columns.map((c: Json) => c.fieldname),
        ['title', 'category', 'amount'],
      );
      assert.ok(
        answer.result.every((r: Json) => !('secret' in r)),
        'no row carries the hidden field',
      );
      assert.equal(answer.result.length, 5);
    });

    test('the caller’s row permissions apply: an owner-only role sees its own documents', async () => {
      const answer = messageOf(await run('Claims by Amount', bob));
      assert.deepEqual(
        answer.result.map((r: Json) => r.title),
        ['Dinner', 'Taxi'],
      );
    });

    test('run-time filters narrow the saved query', async () => {
      const answer = messageOf(await run('Claims by Amount', alice, { category: 'Travel' }));
      assert.deepEqual(
        answer.result.map((r: Json) => r.title),
        ['Flight', 'Hotel'],
      );
      const listed = messageOf(await run('Claims by Amount', alice, [[CLAIM, 'amount', '<', 100]]));
      assert.deepEqual(
        listed.result.map((r: Json) => r.title),
        ['Dinner', 'Lunch', 'Taxi'],
      );
    });

    test('a group-by answers one row per group with its aggregate, and a bar chart of them', async () => {
      const answer = messageOf(await run('Spend by Category', alice));
      assert.deepEqual(answer.columns, [
        { fieldname: 'category', label: 'Category', fieldtype: 'Select', options: '\nTravel\nFood' },
        { fieldname: '_aggregate_column', label: 'Sum of Amount', fieldtype: 'Float' },
      ]);
      const byCategory = Object.fromEntries(answer.result.map((r: Json) => [String(r.category), Number(r._aggregate_column)]));
      assert.deepEqual(byCategory, { null: 15, Food: 60, Travel: 500 });
      assert.equal(answer.chart.type, 'bar');
      assert.deepEqual(answer.chart.data.datasets[0].name, 'Sum of Amount');
      const chart = Object.fromEntries(answer.chart.data.labels.map((l: string, i: number) => [l, answer.chart.data.datasets[0].values[i]]));
      assert.deepEqual(chart, { 'Not Set': 15, Food: 60, Travel: 500 });
      const own = messageOf(await run('Spend by Category', bob));
      assert.deepEqual(Object.fromEntries(own.result.map((r: Json) => [String(r.category), Number(r._aggregate_column)])), { null: 15, Food: 40 });
    });

    test('a count group-by and a total row', async () => {
      await saveReport(
        'Count by Category',
        { fields: [['category', CLAIM]], group_by: { group_by: 'category', aggregate_function: 'count' } },
        { add_total_row: 1 },
      );
      const answer = messageOf(await run('Count by Category', alice));
      assert.equal(answer.add_total_row, 1);
      assert.equal(answer.columns[1].label, 'Count');
      const total = answer.result.at(-1);
      assert.deepEqual(total, { category: 'Total', _aggregate_column: 5 });
    });

    test('a column of a child table is read through its Table field', async () => {
      await saveReport('Claim Lines', {
        fields: [
          ['title', CLAIM],
          ['qty', LINE],
        ],
        filters: [[LINE, 'item', '=', 'ticket']],
      });
      const answer = messageOf(await run('Claim Lines', alice));
      assert.deepEqual(
        answer.columns.map((c: Json) => [c.fieldname, c.label]),
        [
          ['title', 'Title'],
          ['items_qty', 'Qty'],
        ],
      );
      assert.deepEqual(answer.result, [{ title: 'Flight', items_qty: 1 }]);
    });

    test('Query and Script reports are refused with a clear error: fw runs no user SQL or Python', async () => {
      for (const [name, type, extra] of [
        ['Raw SQL', 'Query Report', { query: 'select name from `tabUser`' }],
        ['Raw Script', 'Script Report', { report_script: 'result = []' }],
      ] as const) {
        dataOf(await t.request({ method: 'POST', url: '/api/resource/Report', body: { report_name: name, ref_doctype: CLAIM, report_type: type, ...extra } }));
        const refused = assertError(await run(name), 417, 'ValidationError');
        assert.match(serverMessages(refused)[0], new RegExp(`${type}: fw runs no SQL or Python reports`));
        assertError(await callMethod(t, 'GET', 'fw.desk.query_report.get_script', { report_name: name }), 417, 'ValidationError');
      }
    });

    test('a caller without the report right on the DocType, or without one of the report’s roles, is refused', async () => {
      const noRight = assertError(await run('Claims by Amount', reader), 403, 'PermissionError');
      assert.match(serverMessages(noRight)[0], /You don't have permission to get a report on: Expense Claim/);
      await saveReport('Managers Only', { fields: [['title', CLAIM]] }, { roles: [{ role: 'System Manager' }] });
      assert.match(serverMessages(assertError(await run('Managers Only', alice), 403, 'PermissionError'))[0], /You don't have access to Report: Managers Only/);
      assertError(await run('No Such Report', alice), 404, 'DoesNotExistError');
    });

    test('a report without roles gets the roles of its DocType; a disabled one is refused', async () => {
      const report = await saveReport('Roles Filled', { fields: [['title', CLAIM]] }, { disabled: 1 });
      assert.deepEqual(report.roles.map((r: Json) => r.role).sort(), ['Expense Owner', 'Expense Reader', 'Expense User', 'System Manager']);
      assert.match(serverMessages(assertError(await run('Roles Filled', alice), 417, 'ValidationError'))[0], /Report Roles Filled is disabled/);
    });

    test('a saved query naming an unknown field or DocType is refused when saved, and nothing is stored', async () => {
      const count = await storedCount(t, 'Report');
      for (const json of [
        { fields: [['nope', CLAIM]] },
        { fields: [['title', 'User']] },
        { fields: [['title; drop table x', CLAIM]] },
        { group_by: { group_by: 'category', aggregate_function: 'median' } },
      ]) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Report',
          body: { report_name: `Bad ${JSON.stringify(json).length}`, ref_doctype: CLAIM, json: JSON.stringify(json) },
        });
        if (JSON.stringify(json).includes('nope')) {
          // An unknown field of the DocType itself is found when the report runs, by the list layer.
          dataOf(res);
          assertError(await run(`Bad ${JSON.stringify(json).length}`), 417, 'DataError');
          continue;
        }
        assertError(res, 417, 'DataError');
      }
      assert.equal(await storedCount(t, 'Report'), count + 1);
    });

    test('get_script answers the report’s client script, or an empty one', async () => {
      const answer = messageOf(await callMethod(t, 'GET', 'frappe.desk.query_report.get_script', { report_name: 'Claims by Amount' }, alice.auth));
      assert.equal(answer.script, 'frappe.query_reports["Claims by Amount"] = {}');
      assert.equal(answer.html_format, null);
    });

    describe('sidebar group-by counts', () => {
      test('counts the readable documents matching the filters by a field, most first', async () => {
        const counts = messageOf(
          await callMethod(t, 'GET', 'frappe.desk.listview.get_group_by_count', { doctype: CLAIM, current_filters: [], field: 'category' }, alice.auth),
        );
        assert.deepEqual(
          counts,
          [
            { name: 'Travel', count: 2 },
            { name: 'Food', count: 2 },
            { name: null, count: 1 },
          ].sort((a, b) => b.count - a.count || String(a.name).localeCompare(String(b.name))),
        );
        const filtered = messageOf(
          await callMethod(
            t,
            'GET',
            'fw.desk.reportview.get_group_by_count',
            { doctype: CLAIM, current_filters: { amount: ['>', 30] }, field: 'category' },
            alice.auth,
          ),
        );
        assert.deepEqual(filtered, [
          { name: 'Travel', count: 2 },
          { name: 'Food', count: 1 },
        ]);
        const own = messageOf(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_group_by_count', { doctype: CLAIM, current_filters: [], field: 'owner' }, bob.auth),
        );
        assert.deepEqual(own, [{ name: bob.name, count: 2 }]);
      });

      test('assigned_to counts the open assignments of the matching documents by user', async () => {
        const names = dataOf(await t.request({ method: 'GET', url: `${resourceUrl(CLAIM)}?fields=["name","title"]&limit=0` })) as Json[];
        const byTitle = Object.fromEntries(names.map((n) => [n.title, n.name]));
        for (const [title, user] of [
          ['Flight', alice.name],
          ['Hotel', alice.name],
          ['Dinner', bob.name],
        ]) {
          dataOf(
            await t.request({
              method: 'POST',
              url: '/api/resource/ToDo',
              body: { description: 'check', allocated_to: user, reference_type: CLAIM, reference_name: byTitle[title] },
            }),
          );
        }
        const counts = messageOf(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_group_by_count', { doctype: CLAIM, current_filters: [], field: 'assigned_to' }, alice.auth),
        );
        assert.deepEqual(counts, [
          { name: alice.name, count: 2 },
          { name: bob.name, count: 1 },
        ]);
        const bobs = messageOf(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_group_by_count', { doctype: CLAIM, current_filters: [], field: 'assigned_to' }, bob.auth),
        );
        assert.deepEqual(bobs, [{ name: bob.name, count: 1 }], 'only the documents the caller may read count');
      });

      test('get_sidebar_stats answers [[value, count], …] per known field over the readable matching documents', async () => {
        const answer = messageOf(
          await callMethod(
            t,
            'GET',
            'frappe.desk.reportview.get_sidebar_stats',
            { stats: JSON.stringify(['category', 'not_a_field']), doctype: CLAIM, filters: [] },
            alice.auth,
          ),
        );
        assert.deepEqual(answer, {
          stats: {
            category: [
              ['Food', 2],
              ['Travel', 2],
            ],
          },
        });
        const own = messageOf(
          await callMethod(
            t,
            'GET',
            'frappe.desk.reportview.get_sidebar_stats',
            { stats: ['category'], doctype: CLAIM, filters: [[CLAIM, 'amount', '>', 10]] },
            bob.auth,
          ),
        );
        assert.deepEqual(own, { stats: { category: [['Food', 1]] } });
        assertError(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_sidebar_stats', { stats: ['name'], doctype: 'Webhook' }, alice.auth),
          403,
          'PermissionError',
        );
      });

      test('an unknown field is refused; a DocType the caller cannot read is refused', async () => {
        assertError(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_group_by_count', { doctype: CLAIM, current_filters: [], field: 'nope' }, alice.auth),
          417,
          'DataError',
        );
        assertError(
          await callMethod(t, 'GET', 'fw.desk.reportview.get_group_by_count', { doctype: 'Webhook', current_filters: [], field: 'name' }, alice.auth),
          403,
          'PermissionError',
        );
      });
    });
  });
}
