import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, readDoc, storedCount, uniqueDocTypeName } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * The list view's many-document actions and the small settings the forms ask for (docs/api.md
 * "List actions"): get_list as dicts, delete_items and submit_cancel_or_update_docs per document
 * (a refused one leaves the others done), get_max_file_size and test_password_strength.
 */

const SETTINGS_URL = '/api/resource/System Settings/System Settings';

for (const dialect of testDialects()) {
  describe(`list actions (${dialect.name})`, () => {
    let t: TestSite;
    let viewer: string;
    const BILL = uniqueDocTypeName('Bulk Bill');

    before(async () => {
      t = await startTestSite(dialect);
      await insertDoc(t, 'Role', { role_name: 'Bill Viewer' });
      await createDocType(t, {
        name: BILL,
        is_submittable: 1,
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'amount', fieldtype: 'Int' },
        ],
        permissions: [
          { role: 'System Manager', submit: 1, cancel: 1 },
          { role: 'Bill Viewer', read: 1, write: 0, create: 0, delete: 0, submit: 0, cancel: 0, amend: 0 },
        ],
      });
      await createUser(t, { email: 'bill-viewer@example.com', password: 'Viewer-Secret-42', roles: ['Bill Viewer'], firstName: 'Vera' });
      viewer = await tokenFor(t, 'bill-viewer@example.com');
    });
    after(() => t.close());

    test('get_list answers dicts with start and page_length', async () => {
      for (const n of [1, 2, 3]) await insertDoc(t, BILL, { title: `list ${n}`, amount: n });
      const rows = messageOf(
        await callMethod(
          t,
          'GET',
          'frappe.desk.reportview.get_list',
          { doctype: BILL, fields: ['title', 'amount'], filters: [['title', 'like', 'list %']], order_by: 'amount asc', start: 1, page_length: 1 },
          viewer,
        ),
      );
      assert.deepEqual(rows, [{ title: 'list 2', amount: 2 }]);
      assertError(await callMethod(t, 'GET', 'fw.desk.reportview.get_list', { doctype: BILL, fields: ['nope'] }, viewer), 417, 'DataError');
    });

    test('submit_cancel_or_update_docs acts per document and answers the failures', async () => {
      const a = await insertDoc(t, BILL, { title: 'bulk a' });
      const b = await insertDoc(t, BILL, { title: 'bulk b', docstatus: 1 });
      const failed = await callMethod(t, 'POST', 'frappe.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', {
        doctype: BILL,
        docnames: JSON.stringify([a.name, b.name, 'no-such']),
        action: 'submit',
        data: { amount: 7 },
      });
      assert.deepEqual(messageOf(failed), [b.name, 'no-such']);
      assert.equal((await readDoc(t, BILL, a.name)).docstatus, 1);
      assert.equal((await readDoc(t, BILL, a.name)).amount, 7);
      const cancelled = messageOf(
        await callMethod(t, 'POST', 'fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', {
          doctype: BILL,
          docnames: [a.name, b.name],
          action: 'cancel',
        }),
      );
      assert.deepEqual(cancelled, []);
      assert.equal((await readDoc(t, BILL, b.name)).docstatus, 2);
      const draft = await insertDoc(t, BILL, { title: 'bulk c' });
      assert.deepEqual(
        messageOf(
          await callMethod(t, 'POST', 'fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', {
            doctype: BILL,
            docnames: [draft.name, a.name],
            action: 'update',
            data: { title: 'renamed' },
          }),
        ),
        [a.name],
      );
      assert.equal((await readDoc(t, BILL, draft.name)).title, 'renamed');
      assert.equal((await readDoc(t, BILL, a.name)).title, 'bulk a');
      // A reader may not: every document fails, none changes.
      assert.deepEqual(
        messageOf(
          await callMethod(
            t,
            'POST',
            'fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs',
            { doctype: BILL, docnames: [draft.name], action: 'submit' },
            viewer,
          ),
        ),
        [draft.name],
      );
      assert.equal((await readDoc(t, BILL, draft.name)).docstatus, 0);
      assertError(
        await callMethod(t, 'POST', 'fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', {
          doctype: BILL,
          docnames: [draft.name],
          action: 'amend',
        }),
        417,
        'FrappeTypeError',
      );
      assertError(
        await callMethod(t, 'POST', 'fw.desk.doctype.bulk_update.bulk_update.submit_cancel_or_update_docs', {
          doctype: BILL,
          docnames: Array.from({ length: 501 }, (_, i) => `n${i}`),
        }),
        417,
        'ValidationError',
      );
    });

    test('delete_items deletes what it may and answers the rest, changing nothing for a reader', async () => {
      const a = await insertDoc(t, BILL, { title: 'del a' });
      const b = await insertDoc(t, BILL, { title: 'del b', docstatus: 1 });
      const count = await storedCount(t, BILL);
      assert.deepEqual(messageOf(await callMethod(t, 'POST', 'fw.desk.reportview.delete_items', { doctype: BILL, items: [a.name] }, viewer)), [a.name]);
      assert.equal(await storedCount(t, BILL), count);
      assert.deepEqual(
        messageOf(await callMethod(t, 'POST', 'frappe.desk.reportview.delete_items', { doctype: BILL, items: JSON.stringify([a.name, b.name]) })),
        [b.name],
      );
      assert.equal(await storedCount(t, BILL), count - 1);
      assertError(await callMethod(t, 'POST', 'fw.desk.reportview.delete_items', { doctype: BILL, items: 'not json' }), 417, 'FrappeTypeError');
    });

    test('list settings: set by a System Manager, read by whoever may read the DocType, refused to others', async () => {
      assert.equal(messageOf(await callMethod(t, 'GET', 'fw.desk.reportview.get_list_settings', { doctype: BILL }, viewer)) ?? null, null);
      assertError(
        await callMethod(t, 'POST', 'fw.desk.reportview.set_list_settings', { doctype: BILL, values: { disable_count: 1 } }, viewer),
        403,
        'PermissionError',
      );
      assert.equal(await storedCount(t, 'List View Settings'), 0);
      assert.equal(
        (
          await callMethod(t, 'POST', 'frappe.desk.reportview.set_list_settings', {
            doctype: BILL,
            values: JSON.stringify({ disable_count: 1, fields: '["title"]' }),
          })
        ).statusCode,
        200,
      );
      await callMethod(t, 'POST', 'fw.desk.reportview.set_list_settings', { doctype: BILL, values: { disable_sidebar_stats: 1 } });
      const got = messageOf(await callMethod(t, 'GET', 'frappe.desk.reportview.get_list_settings', { doctype: BILL }, viewer));
      assert.equal(got.name, BILL);
      assert.equal(got.disable_count, 1);
      assert.equal(got.disable_sidebar_stats, 1);
      assert.equal(got.fields, '["title"]');
      const stranger = await tokenFor(t, String((await createUser(t, { email: 'bill-stranger@example.com', password: 'Stranger-Secret-42' })).name));
      assertError(await callMethod(t, 'GET', 'fw.desk.reportview.get_list_settings', { doctype: BILL }, stranger), 403, 'PermissionError');
    });

    test('get_max_file_size answers the bytes the site enforces, to Guest too', async () => {
      const size = await t.request({ method: 'GET', url: '/api/method/frappe.core.api.file.get_max_file_size', anonymous: true });
      assert.equal(size.statusCode, 200, size.body);
      assert.equal(size.json().message, t.site.settingsCache.current.max_file_size);
      assert.ok(size.json().message > 0);
    });

    test('test_password_strength answers {} with the policy off, and the score and verdict with it on', async () => {
      assert.deepEqual(messageOf(await callMethod(t, 'POST', 'fw.core.doctype.user.user.test_password_strength', { new_password: 'password' }, viewer)), {});
      const on = await t.request({ method: 'PUT', url: SETTINGS_URL, body: { enable_password_policy: 1, minimum_password_score: '3' } });
      assert.equal(on.statusCode, 200, on.body);
      const weak = messageOf(await callMethod(t, 'POST', 'frappe.core.doctype.user.user.test_password_strength', { new_password: 'password' }, viewer));
      assert.equal(weak.feedback.password_policy_validation_passed, false);
      assert.ok(weak.score < 3);
      assert.equal(typeof weak.feedback.warning, 'string');
      const strong = messageOf(
        await callMethod(t, 'POST', 'fw.core.doctype.user.user.test_password_strength', { new_password: 'quartz-Lantern-93-ribbon' }, viewer),
      );
      assert.equal(strong.feedback.password_policy_validation_passed, true);
      // The caller's own name counts as guessable.
      const own = messageOf(
        await callMethod(t, 'POST', 'fw.core.doctype.user.user.test_password_strength', { new_password: 'bill-viewer@example.com' }, viewer),
      );
      assert.equal(own.feedback.password_policy_validation_passed, false);
      assertError(
        await callMethod(t, 'POST', 'fw.core.doctype.user.user.test_password_strength', { new_password: 'x'.repeat(300) }, viewer),
        417,
        'FrappeTypeError',
      );
      const off = await t.request({ method: 'PUT', url: SETTINGS_URL, body: { enable_password_policy: 0 } });
      assert.equal(off.statusCode, 200, off.body);
    });
  });
}
