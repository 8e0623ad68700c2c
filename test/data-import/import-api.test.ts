import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { readDoc, storedCount, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { API_MODULE, createDataImport, createImportFixtures, importStatus, MODULE, ORDER, preview, storedTitles, uploadImportFile } from './import-fixtures.js';

/**
 * A UTF-8 file with a BOM: a document with two child rows (the second row continues the first),
 * a bad Select value, a missing required title, dates day-first and ISO, and a column no field has.
 */
const ORDERS_CSV =
  '\uFEFFID,Title,Status,Due,Active,Amount,Item (Lines),Qty (Lines),Delivery (Lines),Colour\n' +
  ',Café order,Open,31-01-2024,yes,12.5,apple,2,01-02-2024,red\n' +
  ',,,,,,pear,3,2024-02-03,\n' +
  ',Bad status,Maybe,01-01-2024,no,1,fig,1,,\n' +
  ',,Open,02-01-2024,no,1,,,,blue\n' +
  ',Third,Closed,2024-03-15,t,3,kiwi,4,,\n';

for (const dialect of testDialects()) {
  describe(`Data Import over HTTP (${dialect.name})`, () => {
    let t: TestSite;
    let worker: JobWorker;
    before(async () => {
      t = await startTestSite(dialect);
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await createImportFixtures(t);
    });
    after(() => t.close());

    test('the preview is a dry run: every row checked as a save checks it, warnings per row and column, nothing stored', async () => {
      const file = await uploadImportFile(t, 'orders-preview.csv', ORDERS_CSV);
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: file });
      const answer = await preview(t, name);
      assert.equal(answer.total_number_of_rows, 5);
      assert.equal(answer.payload_count, 4);
      assert.equal(answer.max_rows_in_preview, 10);
      assert.deepEqual(answer.data[0], [2, '', 'Café order', 'Open', '31-01-2024', 'yes', '12.5', 'apple', '2', '01-02-2024', 'red']);
      assert.equal(answer.data.length, 5);
      const byRow = new Map<number, string>(answer.warnings.filter((w: Json) => w.row).map((w: Json) => [w.row, w.message]));
      assert.deepEqual([...byRow.keys()].sort(), [4, 5]);
      assert.match(byRow.get(4)!, /Maybe/);
      assert.match(byRow.get(5)!, /: title$/, 'the message a save gives for a missing mandatory field');
      const colour = answer.warnings.find((w: Json) => w.col === 10);
      assert.equal(colour?.type, 'info');
      const due = answer.columns.find((c: Json) => c.header_title === 'Due');
      assert.equal(due.map_to_field, 'due');
      assert.equal(due.date_format, 'dd-mm-yyyy');
      assert.equal(answer.columns.find((c: Json) => c.header_title === 'Qty (Lines)').map_to_field, 'lines.qty');
      assert.equal(await storedCount(t, ORDER), 0, 'the dry run stored nothing');
      assert.equal(await storedCount(t, 'Data Import Log'), 0);
    });

    test('the import writes the good documents with their child rows, logs every document, and ends in Partial Success', async () => {
      const file = await uploadImportFile(t, 'orders.csv', ORDERS_CSV);
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: file });
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      assert.equal(
        messageOf(await callMethod(t, 'POST', `${API_MODULE}.form_start_import`, { data_import: name })),
        false,
        'a second start while one is queued is refused',
      );
      assert.equal((await importStatus(t, name)).running, true);
      await worker.runDue();
      assert.deepEqual(await importStatus(t, name), { status: 'Partial Success', success: 2, failed: 2, total_records: 4, running: false });
      assert.deepEqual(await storedTitles(t), ['Café order', 'Third']);

      const logs: Json[] = messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_logs`, { data_import: name }));
      assert.deepEqual(
        logs.map((l) => [l.log_index, l.success, JSON.parse(l.row_indexes)]),
        [
          [0, 1, [2, 3]],
          [1, 0, [4]],
          [2, 0, [5]],
          [3, 1, [6]],
        ],
      );
      assert.match(logs[1]!.exception, /Maybe/);
      const order = await readDoc(t, ORDER, logs[0]!.docname);
      assert.equal(order.due, '2024-01-31');
      assert.equal(order.active, 1);
      assert.equal(order.amount, 12.5);
      assert.deepEqual(
        order.lines.map((l: Json) => [l.item, l.qty, l.delivery]),
        [
          ['apple', 2, '2024-02-01'],
          ['pear', 3, '2024-02-03'],
        ],
      );

      const errored = await callMethod(t, 'GET', `${MODULE}.download_errored_template`, { data_import_name: name });
      assert.equal(errored.statusCode, 200, errored.body);
      assert.match(String(errored.headers['content-disposition']), /^attachment;/);
      const rows = parse(errored.body) as string[][];
      assert.deepEqual(
        rows.map((r) => r[1]),
        ['Title', 'Bad status', ''],
      );

      // Started again: the failures are tried again (and fail again), the successes are skipped.
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      await worker.runDue();
      assert.deepEqual(await storedTitles(t), ['Café order', 'Third'], 'no document was written twice');
      const again: Json[] = messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_logs`, { data_import: name }));
      assert.equal(again.length, 4, 'one log row per document');
      assert.equal((await importStatus(t, name)).status, 'Partial Success');
    });

    test('a Latin-1 file with semicolons, and ISO and month-first dates, are read as such', async () => {
      const latin1 = Buffer.from('Title;Status;Due\nCrème brûlée;Open;12/31/2024\nÉclair;Closed;01/02/2024\n', 'latin1');
      const file = await uploadImportFile(t, 'latin1.csv', latin1);
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: file });
      const answer = await preview(t, name);
      assert.deepEqual(answer.warnings, []);
      assert.equal(answer.columns[2].date_format, 'mm-dd-yyyy');
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      await worker.runDue();
      assert.equal((await importStatus(t, name)).status, 'Success');
      const logs: Json[] = messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_logs`, { data_import: name }));
      const first = await readDoc(t, ORDER, logs[0]!.docname);
      assert.equal(first.title, 'Crème brûlée');
      assert.equal(first.due, '2024-12-31');
      assert.equal((await readDoc(t, ORDER, logs[1]!.docname)).due, '2024-01-02');
    });

    test('stop_data_import stops a queued import before its next document; stopping again says it is not running', async () => {
      const file = await uploadImportFile(t, 'stopped.csv', 'Title\nnever one\nnever two\n');
      const name = await createDataImport(t, { reference_doctype: ORDER, import_file: file, template_options: JSON.stringify({ column_to_field_map: {} }) });
      const before = await storedCount(t, ORDER);
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name })), true);
      assert.deepEqual(messageOf(await callMethod(t, 'POST', `${MODULE}.stop_data_import`, { doc_name: name })), {
        status: 'success',
        message: 'Job stopped successfully',
      });
      await worker.runDue();
      assert.equal(await storedCount(t, ORDER), before, 'the stopped import wrote nothing');
      assert.equal((await importStatus(t, name)).status, 'Error');
      const again = await callMethod(t, 'POST', `${MODULE}.stop_data_import`, { doc_name: name });
      assert.equal(again.statusCode, 200, again.body);
      assert.match(String(again.json()._server_messages), /Job is not running/);
    });

    test('a heading mapped to "Don\'t Import" in template_options is skipped with an info warning', async () => {
      const file = await uploadImportFile(t, 'mapped.csv', 'Title,Status\nMapped,Nonsense\n');
      const name = await createDataImport(t, {
        reference_doctype: ORDER,
        import_file: file,
        template_options: JSON.stringify({ column_to_field_map: { Status: "Don't Import" } }),
      });
      const answer = await preview(t, name);
      assert.deepEqual(answer.warnings, [{ col: 2, message: 'Column Status is set not to be imported', type: 'info' }]);
      assert.equal(answer.columns[1].skip_import, true);
    });
  });
}
