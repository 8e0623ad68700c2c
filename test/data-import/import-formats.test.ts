import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, readDoc, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createDataImport, createImportFixtures, importStatus, LINE, MODULE, ORDER, preview, uploadImportFile } from './import-fixtures.js';

const TEMPLATE_HEADER = ['ID', 'Title', 'Status', 'Due', 'Active', 'Amount', 'ID (Lines)', 'Item (Lines)', 'Qty (Lines)', 'Delivery (Lines)'];

/** An XLSX written by exceljs: real date cells (a date format) and numbers, two child rows on one document. */
async function ordersWorkbook(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Orders');
  sheet.addRow(['Title', 'Due', 'Amount', 'Item (Lines)', 'Qty (Lines)', 'Delivery (Lines)']);
  sheet.addRow(['From Excel', new Date(Date.UTC(2024, 0, 31)), 7.25, 'plum', 5, new Date(Date.UTC(2024, 1, 29))]);
  sheet.addRow([null, null, null, 'lime', 6, null]);
  sheet.getColumn(2).numFmt = 'dd/mm/yyyy';
  sheet.getColumn(6).numFmt = 'mm/dd/yy';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

for (const dialect of testDialects()) {
  describe(`Data Import files and templates (${dialect.name})`, () => {
    let t: TestSite;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect);
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await createImportFixtures(t);
    });
    after(() => t.close());

    test('an XLSX file keeps its date cells as dates and its numbers as numbers', async () => {
      const file = await uploadImportFile(t, 'orders.xlsx', await ordersWorkbook());
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: file });
      const answer = await preview(t, name);
      assert.deepEqual(answer.warnings, []);
      assert.equal(answer.total_number_of_rows, 2);
      assert.deepEqual(answer.data[0], [2, 'From Excel', '2024-01-31', '7.25', 'plum', '5', '2024-02-29']);
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      await worker.runDue();
      assert.equal((await importStatus(t, name)).status, 'Success');
      const [log] = messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_logs`, { data_import: name })) as Json[];
      const order = await readDoc(t, ORDER, log!.docname);
      assert.equal(order.due, '2024-01-31');
      assert.equal(order.amount, 7.25);
      assert.deepEqual(
        order.lines.map((l: Json) => [l.item, l.qty, l.delivery]),
        [
          ['plum', 5, '2024-02-29'],
          ['lime', 6, undefined],
        ],
      );
    });

    test('download_template answers the reference headings, child-table columns included, as CSV and as Excel', async () => {
      const csv = await callMethod(t, 'GET', `${MODULE}.download_template`, { doctype: ORDER, export_records: 'blank_template', file_type: 'CSV' });
      assert.equal(csv.statusCode, 200, csv.body);
      assert.match(String(csv.headers['content-disposition']), /^attachment; filename="Imp Order.csv"/);
      assert.deepEqual(parse(csv.body), [TEMPLATE_HEADER]);

      const xlsx = await callMethod(t, 'POST', `${MODULE}.download_template`, { doctype: ORDER, file_type: 'Excel' });
      assert.equal(xlsx.statusCode, 200, xlsx.body);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
      assert.deepEqual((workbook.worksheets[0]!.getRow(1).values as unknown[]).slice(1), TEMPLATE_HEADER);

      const some = await callMethod(t, 'GET', `${MODULE}.download_template`, {
        doctype: ORDER,
        export_fields: { [ORDER]: ['title'], lines: ['item'] },
        export_records: 'blank_template',
      });
      assert.deepEqual(parse(some.body), [['ID', 'Title', 'ID (Lines)', 'Item (Lines)']]);
    });

    test('a template with records round-trips: Update Existing Records changes the documents it names', async () => {
      const doc = await insertDoc(t, ORDER, { title: 'To update', status: 'Open', lines: [{ item: 'old' }] });
      const filled = await callMethod(t, 'GET', `${MODULE}.download_template`, {
        doctype: ORDER,
        export_records: 'by_filter',
        export_filters: { title: 'To update' },
      });
      const rows = parse(filled.body) as string[][];
      assert.equal(rows.length, 2);
      assert.equal(rows[1]![0], doc.name);
      rows[1]![2] = 'Closed';
      rows[1]![7] = 'new';
      const csv = rows.map((r) => r.map((c) => JSON.stringify(c)).join(',')).join('\n');
      const file = await uploadImportFile(t, 'update.csv', csv);
      const name = await createDataImport(t, { reference_doctype: ORDER, import_type: 'Update Existing Records', import_file: file });
      assert.deepEqual((await preview(t, name)).warnings, []);
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      await worker.runDue();
      assert.equal((await importStatus(t, name)).status, 'Success');
      const updated = await readDoc(t, ORDER, doc.name);
      assert.equal(updated.status, 'Closed');
      assert.deepEqual(
        updated.lines.map((l: Json) => [l.name, l.item]),
        [[doc.lines[0].name, 'new']],
        'the child row kept its ID',
      );
    });

    test('bad arguments answer 4xx, never 500', async () => {
      const unknown = await callMethod(t, 'GET', `${MODULE}.download_template`, { doctype: 'No Such DocType' });
      assert.equal(unknown.statusCode, 404, unknown.body);
      const child = await callMethod(t, 'GET', `${MODULE}.download_template`, { doctype: LINE });
      assert.equal(child.statusCode, 417, child.body);
      const badFields = await callMethod(t, 'GET', `${MODULE}.download_template`, { doctype: ORDER, export_fields: '[1' });
      assert.equal(badFields.statusCode, 417, badFields.body);
      const docx = await uploadImportFile(t, 'orders.docx', 'not a spreadsheet');
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: docx });
      const refused = await callMethod(t, 'POST', `${MODULE}.get_preview_from_template`, { data_import: name });
      assert.equal(refused.statusCode, 417, refused.body);
      const broken = await uploadImportFile(t, 'broken.xlsx', 'PK not really a zip');
      const name2 = await createDataImport(t, { reference_doctype: ORDER, import_file: broken });
      const refused2 = await callMethod(t, 'POST', `${MODULE}.get_preview_from_template`, { data_import: name2 });
      assert.equal(refused2.statusCode, 417, refused2.body);
      const missing = await callMethod(t, 'GET', `${MODULE}.get_import_status`, { data_import_name: 'nope' });
      assert.equal(missing.statusCode, 404, missing.body);
    });

    test('the dry run leaves no naming-series counter behind: the first real insert still gets number 1', async () => {
      await createDocType(t, { name: 'Imp Series', autoname: 'IMPS-.####', fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      const file = await uploadImportFile(t, 'series.csv', 'Title\na\nb\nc\n');
      const name = await createDataImport(t, { reference_doctype: 'Imp Series', import_file: file });
      assert.deepEqual((await preview(t, name)).warnings, []);
      assert.equal((await insertDoc(t, 'Imp Series', { title: 'first' })).name, 'IMPS-0001');
    });
  });
}
