import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc } from '../helpers/document-api.js';
import { createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * export_query over real HTTP (docs/import-export.md "Export"): the files are read back by
 * csv-parse and exceljs, as a user's spreadsheet would read them.
 */

const SLIP = 'Export Slip';
const ITEM = 'Export Slip Item';
const METHOD = '/api/method/frappe.desk.reportview.export_query';
const FIELDS = ['name', 'title', 'amount', 'qty', 'due', 'at', 'secret'];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

for (const dialect of testDialects()) {
  describe(`export_query (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let exporter: ActingUser;
    let reader: ActingUser;
    let owner: ActingUser;
    const names: string[] = [];

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
      return parse(a.bytes, { bom: true, relax_column_count: false }) as string[][];
    };

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: ITEM,
        istable: 1,
        fields: [
          { fieldname: 'item_code', label: 'Item Code', fieldtype: 'Data' },
          { fieldname: 'rate', label: 'Rate', fieldtype: 'Float' },
        ],
      });
      for (const role of ['Slip Exporter', 'Slip Reader', 'Slip Owner']) await createRole(t, role);
      await createDocType(t, {
        name: SLIP,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
          { fieldname: 'at', label: 'At', fieldtype: 'Datetime' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', permlevel: 1 },
          { fieldname: 'items', label: 'Items', fieldtype: 'Table', options: ITEM },
        ],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, export: 1 },
          { role: 'System Manager', permlevel: 1, read: 1, write: 1 },
          { role: 'Slip Exporter', read: 1, export: 1 },
          // DocPerm's export defaults to 1, as the reference's does: the reader's row turns it off.
          { role: 'Slip Reader', read: 1, export: 0 },
          { role: 'Slip Owner', read: 1, write: 1, create: 1, export: 1, if_owner: 1 },
        ],
      });
      const docs = [
        {
          title: 'Café – ünïcødé 漢字',
          amount: 1234.56,
          qty: 3,
          due: '2025-03-04',
          at: '2025-03-04 13:45:06',
          secret: 'hidden-1',
          items: [
            { item_code: 'A-1', rate: 1.5 },
            { item_code: 'B-2', rate: 2.25 },
          ],
        },
        { title: '=HYPERLINK("http://evil.example","x")', amount: -0.1, qty: -7, due: '1999-12-31', at: '2000-01-01 00:00:00', secret: 'hidden-2', items: [] },
        { title: '@SUM(A1)', amount: 0, qty: 0, due: null, at: null, secret: 'hidden-3', items: [] },
      ];
      for (const doc of docs) names.push(String((await insertDoc(t, SLIP, doc)).name));
      exporter = await createUser(t, 'slip-exporter@example.com', { roles: ['Slip Exporter'] });
      reader = await createUser(t, 'slip-reader@example.com', { roles: ['Slip Reader'] });
      owner = await createUser(t, 'slip-owner@example.com', { roles: ['Slip Owner'] });
      const own = await t.request({
        method: 'POST',
        url: `/api/resource/${encodeURIComponent(SLIP)}`,
        headers: { authorization: owner.auth },
        anonymous: true,
        body: { title: 'mine', qty: 1 },
      });
      assert.equal(own.statusCode, 200, own.body);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      assert.ok(address && typeof address === 'object');
      base = `http://127.0.0.1:${address.port}`;
    });
    after(() => t.close());

    test('CSV: the reference header, unicode, decimals, dates, and formulas made inert', async () => {
      const a = await call(t.adminAuth, { doctype: SLIP, fields: FIELDS, filters: [['name', 'in', names]], order_by: 'qty desc', file_format_type: 'CSV' });
      assert.equal(a.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(a.headers.get('content-disposition'), `attachment; filename="Export Slip.csv"; filename*=UTF-8''Export%20Slip.csv`);
      assert.deepEqual(a.bytes.subarray(0, 3), Buffer.from([0xef, 0xbb, 0xbf]));
      const rows = csv(a);
      assert.deepEqual(rows[0], ['Sr', 'ID', 'Title', 'Amount', 'Qty', 'Due', 'At', 'Secret']);
      assert.equal(rows.length, 4);
      assert.deepEqual(rows[1].slice(0, 6), ['1', names[0], 'Café – ünïcødé 漢字', '1234.56', '3', '2025-03-04']);
      assert.match(rows[1][6], /^2025-03-04 13:45:06/);
      assert.equal(rows[1][7], 'hidden-1');
      assert.deepEqual(rows[2].slice(0, 6), ['2', names[2], `'@SUM(A1)`, '0', '0', '']);
      assert.deepEqual(rows[3].slice(0, 6), ['3', names[1], `'=HYPERLINK("http://evil.example","x")`, '-0.1', '-7', '1999-12-31']);
    });

    test('Excel: numbers as numbers, dates as dates, text starting with = as text', async () => {
      const a = await call(
        t.adminAuth,
        { doctype: SLIP, fields: FIELDS, filters: [['name', 'in', names]], order_by: 'qty desc', file_format_type: 'Excel', title: 'Slips «März»' },
        'POST',
      );
      assert.equal(a.status, 200, a.bytes.toString());
      assert.equal(a.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      assert.equal(a.headers.get('content-disposition'), `attachment; filename="Slips _M_rz_.xlsx"; filename*=UTF-8''Slips%20%C2%ABM%C3%A4rz%C2%BB.xlsx`);
      const rows = await xlsxRows(a.bytes);
      assert.deepEqual(rows[0], ['Sr', 'ID', 'Title', 'Amount', 'Qty', 'Due', 'At', 'Secret']);
      assert.equal(rows.length, 4);
      assert.deepEqual(rows[1].slice(0, 5), [1, names[0], 'Café – ünïcødé 漢字', 1234.56, 3]);
      assert.deepEqual(rows[1][5], new Date(Date.UTC(2025, 2, 4)));
      assert.deepEqual(rows[1][6], new Date(Date.UTC(2025, 2, 4, 13, 45, 6)));
      assert.deepEqual(rows[2].slice(0, 6), [2, names[2], '@SUM(A1)', 0, 0, null]);
      assert.deepEqual(rows[3].slice(0, 5), [3, names[1], '=HYPERLINK("http://evil.example","x")', -0.1, -7]);
      assert.deepEqual(rows[3][5], new Date(Date.UTC(1999, 11, 31)));
    });

    test('child-table columns carry the child DocType in their heading, one line per child row', async () => {
      const rows = csv(
        await call(t.adminAuth, {
          doctype: SLIP,
          fields: ['name', 'title', '`tabExport Slip Item`.item_code', '`tabExport Slip Item`.rate'],
          selected_items: [names[0]],
          order_by: '`tabExport Slip Item`.idx asc',
        }),
      );
      assert.deepEqual(rows, [
        ['Sr', 'ID', 'Title', 'Item Code (Export Slip Item)', 'Rate (Export Slip Item)'],
        ['1', names[0], 'Café – ünïcødé 漢字', 'A-1', '1.5'],
        ['2', names[0], 'Café – ünïcødé 漢字', 'B-2', '2.25'],
      ]);
    });

    test("a column above the caller's permlevel is never exported", async () => {
      for (const format of ['CSV', 'Excel']) {
        const a = await call(exporter.auth, {
          doctype: SLIP,
          fields: FIELDS,
          filters: [['name', 'in', names]],
          order_by: 'qty desc',
          file_format_type: format,
        });
        assert.equal(a.status, 200, a.bytes.toString());
        const rows = format === 'CSV' ? csv(a) : await xlsxRows(a.bytes);
        assert.deepEqual(rows[0], ['Sr', 'ID', 'Title', 'Amount', 'Qty', 'Due', 'At']);
        assert.equal(rows.length, 4);
        assert.ok(!a.bytes.includes('hidden-'), 'no secret value in the file');
        for (const row of rows.slice(1)) assert.equal(row.filter((v) => v !== undefined).length <= 7, true);
      }
      // Only the secret column asked for: nothing left to export.
      const only = await call(exporter.auth, { doctype: SLIP, fields: ['secret'] });
      assert.equal(only.status, 417);
      assert.ok(!only.bytes.includes('hidden-'));
      // Every column by default: the secret one left out too.
      const all = csv(await call(exporter.auth, { doctype: SLIP, filters: [['name', '=', names[0]]] }));
      assert.deepEqual(all[0], ['Sr', 'ID', 'Title', 'Amount', 'Qty', 'Due', 'At']);
    });

    test('without the export right: 403 as JSON, and no rows', async () => {
      const a = await call(reader.auth, { doctype: SLIP, fields: ['name', 'title'] });
      assert.equal(a.status, 403);
      const body = JSON.parse(a.bytes.toString()) as { exc_type: string };
      assert.equal(body.exc_type, 'PermissionError');
      assert.ok(!a.bytes.includes('Café'));
      const guest = await fetch(base + METHOD + query({ doctype: SLIP }));
      assert.equal(guest.status, 403);
      assert.ok(!(await guest.text()).includes('Café'));
    });

    test('row-level permissions apply: an if_owner exporter gets only their own documents', async () => {
      const rows = csv(await call(owner.auth, { doctype: SLIP, fields: ['name', 'title'] }));
      assert.deepEqual(
        rows.slice(1).map((r) => r[2]),
        ['mine'],
      );
    });

    test('bad arguments are clear 4xx errors, never a 500', async () => {
      for (const params of [
        { doctype: SLIP, file_format_type: 'PDF' },
        { doctype: SLIP, fields: ['no_such_field'] },
        { doctype: SLIP, fields: ['name; drop table x'] },
        { doctype: SLIP, selected_items: [{ x: 1 }] },
        { doctype: SLIP, csv_delimiter: '""' },
        { doctype: 'No Such DocType' },
      ]) {
        const a = await call(t.adminAuth, params);
        assert.ok(a.status >= 400 && a.status < 500, `${JSON.stringify(params)} answered ${a.status}`);
        assert.ok(typeof (JSON.parse(a.bytes.toString()) as { exc_type?: string }).exc_type === 'string');
      }
      const count = await t.request({ method: 'GET', url: `/api/method/frappe.client.get_count${query({ doctype: SLIP })}` });
      assert.equal(count.json().message, 4);
    });

    test('the fw. name answers too, and the site keeps answering after an export', async () => {
      const a = await fetch(base + '/api/method/fw.desk.reportview.export_query' + query({ doctype: SLIP, fields: ['name'], csv_delimiter: ';' }), {
        headers: { authorization: t.adminAuth },
      });
      assert.equal(a.status, 200);
      const rows = parse(Buffer.from(await a.arrayBuffer()), { bom: true, delimiter: ';' }) as string[][];
      assert.equal(rows.length, 5);
      const after = await t.request({ method: 'GET', url: `/api/resource/${encodeURIComponent(SLIP)}` });
      assert.equal(after.statusCode, 200);
    });
  });
}

/** The first sheet's rows as exceljs reads them (values by column, index 0 = column A). */
async function xlsxRows(bytes: Buffer): Promise<unknown[][]> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes]), { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache' });
  const rows: unknown[][] = [];
  for await (const sheet of reader) {
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      // row.values is sparse (empty cells are holes) and 1-based.
      rows.push(Array.from((row.values as unknown[]).slice(1), (v) => v ?? null));
    }
    break;
  }
  // exceljs leaves trailing empty cells out: pad to the heading's width.
  const width = rows[0]?.length ?? 0;
  return rows.map((r) => [...r, ...Array.from({ length: Math.max(0, width - r.length) }, () => null)]);
}
