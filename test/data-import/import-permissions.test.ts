import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, readDoc, storedCount, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createDataImport, importStatus, MODULE, uploadImportFile } from './import-fixtures.js';

/** Readable by System Managers, but nobody may create or change one. */
const LOCKED = 'Imp Locked';
/** Importers may create notes. */
const NOTE = 'Imp Note';

for (const dialect of testDialects()) {
  describe(`Data Import permissions (${dialect.name})`, () => {
    let t: TestSite;
    let worker: JobWorker;
    let manager: ActingUser;
    let mallory: ActingUser;
    let victim: ActingUser;
    const as = (user: ActingUser) => ({ name: user.name, headers: { authorization: user.auth } });
    before(async () => {
      t = await startTestSite(dialect);
      worker = new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) });
      await createRole(t, 'Importer');
      await createDocType(t, {
        name: LOCKED,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager', create: 0, write: 0, delete: 0 }],
      });
      await createDocType(t, {
        name: NOTE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Importer' }],
      });
      manager = await createUser(t, 'manager@example.com', { roles: ['System Manager'] });
      mallory = await createUser(t, 'mallory@example.com', { roles: ['Importer'] });
      victim = await createUser(t, 'victim@example.com', { roles: ['Importer'] });
      // Saving a DocType queues other subsystems' jobs (the search index's rebuild): run them now, so
      // the jobs counted below are this file's own.
      await worker.runDue();
    });
    after(() => t.close());

    test('an importer without create permission on the DocType is refused at preview and start, and nothing is queued or stored', async () => {
      const file = await uploadImportFile(t, 'locked.csv', 'Title\nnope\n', as(manager));
      const name = await createDataImport(t, { reference_doctype: LOCKED, import_file: file }, manager.auth);
      assertError(await callMethod(t, 'POST', `${MODULE}.get_preview_from_template`, { data_import: name }, manager.auth), 403, 'PermissionError');
      assertError(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name }, manager.auth), 403, 'PermissionError');
      const updating = await createDataImport(t, { reference_doctype: LOCKED, import_type: 'Update Existing Records', import_file: file }, manager.auth);
      assertError(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: updating }, manager.auth), 403, 'PermissionError');
      assert.equal(await worker.runDue(), 0, 'no job was queued');
      assert.equal(await storedCount(t, LOCKED), 0);
      assert.equal((await importStatus(t, name)).status, 'Pending');
    });

    test('documents are written as the user who started the import', async () => {
      const file = await uploadImportFile(t, 'manager.csv', 'Title\nmine\n', as(manager));
      const name = await createDataImport(t, { reference_doctype: NOTE, import_file: file }, manager.auth);
      assert.equal(messageOf(await callMethod(t, 'POST', `${MODULE}.form_start_import`, { data_import: name }, manager.auth)), true);
      await worker.runDue();
      const [log] = messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_logs`, { data_import: name })) as Json[];
      const note = await readDoc(t, NOTE, log!.docname);
      assert.equal(note.owner, manager.name);
    });

    test("a shared Data Import pointed at another user's private file is refused: its rows are never read", async () => {
      const secret = await uploadImportFile(t, 'victim-secret.csv', 'Title\nconfidential figures\n', as(victim));
      const own = await uploadImportFile(t, 'mallory.csv', 'Title\nharmless\n', as(mallory));
      const name = await createDataImport(t, { reference_doctype: NOTE, import_file: own });
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocShare',
          body: { share_doctype: 'Data Import', share_name: name, user: mallory.name, read: 1, write: 1 },
        }),
      );
      const changed = await t.request({
        method: 'PUT',
        url: `/api/resource/Data Import/${name}`,
        body: { import_file: secret },
        headers: { authorization: mallory.auth },
        anonymous: true,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const notesBefore = await storedCount(t, NOTE);
      const previewed = await t.request({
        method: 'POST',
        url: `/api/method/${MODULE}.get_preview_from_template`,
        body: { data_import: name },
        headers: { authorization: mallory.auth },
        anonymous: true,
      });
      assertError(previewed, 403, 'PermissionError');
      assert.doesNotMatch(previewed.body, /confidential/);
      const viaArg = await t.request({
        method: 'POST',
        url: `/api/method/${MODULE}.get_preview_from_template`,
        body: { data_import: name, import_file: secret },
        headers: { authorization: mallory.auth },
        anonymous: true,
      });
      assertError(viaArg, 403, 'PermissionError');
      assertError(
        await t.request({
          method: 'POST',
          url: `/api/method/${MODULE}.form_start_import`,
          body: { data_import: name },
          headers: { authorization: mallory.auth },
          anonymous: true,
        }),
        403,
        'PermissionError',
      );
      const errored = await t.request({
        method: 'GET',
        url: `/api/method/${MODULE}.download_errored_template?data_import_name=${name}`,
        headers: { authorization: mallory.auth },
        anonymous: true,
      });
      assertError(errored, 403, 'PermissionError');
      assert.equal(await worker.runDue(), 0);
      assert.equal(await storedCount(t, NOTE), notesBefore);
    });

    test('Guest and users who may not read the import are refused', async () => {
      const file = await uploadImportFile(t, 'guest.csv', 'Title\nx\n');
      const name = await createDataImport(t, { reference_doctype: NOTE, import_file: file });
      assertError(
        await t.request({ method: 'POST', url: `/api/method/${MODULE}.form_start_import`, body: { data_import: name }, anonymous: true }),
        403,
        'PermissionError',
      );
      assertError(await callMethod(t, 'GET', `${MODULE}.get_import_status`, { data_import_name: name }, victim.auth), 403, 'PermissionError');
      assertError(await callMethod(t, 'POST', `${MODULE}.stop_data_import`, { doc_name: name }, victim.auth), 403, 'PermissionError');
      assert.equal(await worker.runDue(), 0);
    });
  });
}
