import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, resourceUrl } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Exporting a Report Builder report (docs/reports.md "Exporting a report"): the file holds what
 * `run` answers the caller (their rows and columns, the group-by and the total row), read back here
 * as CSV and as Excel; the refusals answer JSON before any file is sent.
 */

const BILL = 'Export Bill';
const METHOD = '/api/method/frappe.desk.query_report.export_query';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

for (const dialect of testDialects()) {
  describe(`report export (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let exporter: ActingUser;
    let owner: ActingUser;
    let viewer: ActingUser;

    const call = async (auth: string, params: Record<string, unknown>, method: 'GET' | 'POST' = 'GET'): Promise<Answer> => {
      const init: RequestInit =
        method === 'GET'
          ? { headers: { authorization: auth } }
          : { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(params) };
      const res = await fetch(base + METHOD + (method === 'GET' ? query(params) : ''), init);
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const csv = (a: Answer): string[][] => {
      assert.equal(a.status, 200, a.bytes.toString());
      return parse(a.bytes, { bom: true }) as string[][];
    };
    const saveReport = async (name: string, json: unknown, extra: Record<string, unknown> = {}) =>
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/Report',
          body: { report_name: name, ref_doctype: BILL, report_type: 'Report Builder', json: JSON.stringify(json), ...extra },
        }),
      );

    before(async () => {
      t = await startTestSite(dialect);
      for (const role of ['Bill Exporter', 'Bill Owner', 'Bill Viewer']) await createRole(t, role);
      const none = { write: 0, create: 0, delete: 0, export: 0, report: 0 };
      await createDocType(t, {
        name: BILL,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'kind', label: 'Kind', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
          { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', permlevel: 1 },
        ],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, report: 1, export: 1 },
          { role: 'System Manager', permlevel: 1, read: 1, write: 1 },
          { role: 'Bill Exporter', ...none, read: 1, report: 1, export: 1 },
          { role: 'Bill Owner', ...none, read: 1, create: 1, report: 1, export: 1, if_owner: 1 },
          { role: 'Bill Viewer', ...none, read: 1, report: 1 },
        ],
      });
      for (const body of [
        { title: 'Rent', kind: 'Fixed', amount: 1000.5, due: '2026-01-31', secret: 's-1' },
        { title: '=CMD()', kind: 'Fixed', amount: 20, due: '2026-02-01', secret: 's-2' },
        { title: 'Snacks', kind: 'Food', amount: 7.25, due: null, secret: 's-3' },
      ]) {
        dataOf(await t.request({ method: 'POST', url: resourceUrl(BILL), body }));
      }
      exporter = await createUser(t, 'bill-exporter@example.com', { roles: ['Bill Exporter'] });
      owner = await createUser(t, 'bill-owner@example.com', { roles: ['Bill Owner'] });
      viewer = await createUser(t, 'bill-viewer@example.com', { roles: ['Bill Viewer'] });
      dataOf(await actAs(t, owner, { method: 'POST', url: resourceUrl(BILL), body: { title: 'Mine', kind: 'Food', amount: 3 } }));
      await saveReport(
        'Bills',
        {
          fields: [
            ['title', BILL],
            ['amount', BILL],
            ['due', BILL],
            ['secret', BILL],
          ],
          order_by: 'amount desc',
        },
        { add_total_row: 1 },
      );
      await saveReport('Bills by Kind', {
        fields: [['kind', BILL]],
        group_by: { group_by: 'kind', aggregate_function: 'sum', aggregate_on: 'amount' },
        order_by: 'kind asc',
      });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      assert.ok(address && typeof address === 'object');
      base = `http://127.0.0.1:${address.port}`;
    });
    after(() => t.close());

    test('CSV holds the report as run by the caller: their columns, rows in order, the total row, formulas inert', async () => {
      const a = await call(exporter.auth, { report_name: 'Bills', file_format_type: 'CSV' });
      assert.equal(a.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(String(a.headers.get('content-disposition')), /attachment; filename="Bills.csv"/);
      assert.deepEqual(csv(a), [
        ['Sr', 'Title', 'Amount', 'Due'],
        ['1', 'Rent', '1000.5', '2026-01-31'],
        ['2', "'=CMD()", '20', '2026-02-01'],
        ['3', 'Snacks', '7.25', ''],
        ['4', 'Mine', '3', ''],
        ['5', 'Total', '1030.75', ''],
      ]);
    });

    test('the caller’s rows apply (an owner-only role exports its own), and visible_idx keeps the rows the client shows', async () => {
      assert.deepEqual(
        csv(await call(owner.auth, { report_name: 'Bills' })).map((r) => r[1]),
        ['Title', 'Mine', 'Total'],
      );
      assert.deepEqual(
        csv(await call(exporter.auth, { report_name: 'Bills', visible_idx: [0, 2] }, 'POST')).map((r) => r[1]),
        ['Title', 'Rent', 'Snacks'],
      );
    });

    test('Excel: a group-by report with its aggregate column, numbers as numbers', async () => {
      const a = await call(exporter.auth, { report_name: 'Bills by Kind', file_format_type: 'Excel' });
      assert.equal(a.status, 200, a.bytes.toString());
      assert.equal(a.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(a.bytes as unknown as ArrayBuffer);
      const sheet = book.worksheets[0];
      const rows: unknown[][] = [];
      sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      assert.deepEqual(rows, [
        ['Sr', 'Kind', 'Sum of Amount'],
        [1, 'Fixed', 1020.5],
        [2, 'Food', 10.25],
      ]);
    });

    test('refusals answer JSON and send no file: no export right, no report right, Query reports, bad arguments', async () => {
      const refusals: Array<[string, Record<string, unknown>, number, string]> = [
        [viewer.auth, { report_name: 'Bills' }, 403, 'PermissionError'],
        [exporter.auth, { report_name: 'No Such Report' }, 404, 'DoesNotExistError'],
        [exporter.auth, { report_name: 'Bills', file_format_type: 'PDF' }, 417, 'DataError'],
        [exporter.auth, { report_name: 'Bills', visible_idx: ['x'] }, 417, 'FrappeTypeError'],
      ];
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/Report',
          body: { report_name: 'Raw', ref_doctype: BILL, report_type: 'Query Report', query: 'select 1' },
        }),
      );
      refusals.push([t.adminAuth, { report_name: 'Raw' }, 417, 'ValidationError']);
      for (const [auth, params, status, excType] of refusals) {
        const a = await call(auth, params);
        assert.equal(a.status, status, `${JSON.stringify(params)}: ${a.bytes.toString()}`);
        assert.match(String(a.headers.get('content-type')), /application\/json/);
        assert.equal(JSON.parse(a.bytes.toString()).exc_type, excType);
      }
    });
  });
}
