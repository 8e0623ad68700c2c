import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, readDoc, storedCount, storedRow, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * The form's save and its neighbours (docs/api.md "Form saves", "Linked documents", "Per-user
 * settings"): savedocs and cancel answering `docs` and `docinfo`, getdoctype with its cache stamp and
 * user_settings, is_document_amended, and what links to a document, under the caller's rights.
 */

for (const dialect of testDialects()) {
  describe(`form saves (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: string;
    let reader: string;
    const ORDER = uniqueDocTypeName('Form Order');
    const LINE = uniqueDocTypeName('Form Line');
    const NOTE = uniqueDocTypeName('Form Note');
    const SHIPMENT = uniqueDocTypeName('Form Shipment');
    const HIDDEN = uniqueDocTypeName('Form Hidden');

    before(async () => {
      t = await startTestSite(dialect);
      await insertDoc(t, 'Role', { role_name: 'Form Clerk' });
      await insertDoc(t, 'Role', { role_name: 'Form Reader' });
      await createDocType(t, {
        name: LINE,
        istable: 1,
        fields: [
          { fieldname: 'item', fieldtype: 'Data' },
          { fieldname: 'qty', fieldtype: 'Int' },
        ],
      });
      const clerkRights = { role: 'Form Clerk', read: 1, write: 1, create: 1, submit: 1, cancel: 1, amend: 1 };
      await createDocType(t, {
        name: ORDER,
        is_submittable: 1,
        fields: [
          { fieldname: 'title', fieldtype: 'Data', reqd: 1, in_list_view: 1 },
          { fieldname: 'lines', fieldtype: 'Table', options: LINE },
        ],
        permissions: [
          { role: 'System Manager', submit: 1, cancel: 1, amend: 1 },
          clerkRights,
          { role: 'Form Reader', read: 1, write: 0, create: 0, delete: 0, submit: 0, cancel: 0, amend: 0 },
        ],
      });
      await createDocType(t, {
        name: SHIPMENT,
        is_submittable: 1,
        fields: [
          { fieldname: 'order', fieldtype: 'Link', options: ORDER, in_list_view: 1 },
          { fieldname: 'label', fieldtype: 'Data' },
        ],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1 }, clerkRights],
      });
      await createDocType(t, {
        name: NOTE,
        fields: [
          { fieldname: 'order', fieldtype: 'Link', options: ORDER },
          { fieldname: 'text', fieldtype: 'Data', in_list_view: 1 },
        ],
        permissions: [{ role: 'System Manager' }, clerkRights],
      });
      await createDocType(t, { name: HIDDEN, fields: [{ fieldname: 'order', fieldtype: 'Link', options: ORDER }] });
      await createUser(t, { email: 'form-clerk@example.com', password: 'Clerk-Secret-42', roles: ['Form Clerk'] });
      clerk = await tokenFor(t, 'form-clerk@example.com');
      await createUser(t, { email: 'form-reader@example.com', password: 'Reader-Secret-42', roles: ['Form Reader'] });
      reader = await tokenFor(t, 'form-reader@example.com');
    });
    after(() => t.close());

    const newOrder = (title: string): Json => ({
      doctype: ORDER,
      name: `new-form-order-${title}`,
      __islocal: 1,
      __unsaved: 1,
      title,
      lines: [{ doctype: LINE, name: 'new-form-line-1', __islocal: 1, item: 'pen', qty: 2 }],
    });

    test('Save inserts an unsaved form, answering docs (with localname) and docinfo, under frappe.* too', async () => {
      const res = await callMethod(t, 'POST', 'frappe.desk.form.save.savedocs', { doc: JSON.stringify(newOrder('first')), action: 'Save' }, clerk);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.message, undefined);
      const [doc] = body.docs as Json[];
      assert.equal(doc.localname, 'new-form-order-first');
      assert.notEqual(doc.name, 'new-form-order-first');
      assert.equal(doc.docstatus, 0);
      assert.equal(doc.title, 'first');
      assert.equal(doc.lines.length, 1);
      assert.notEqual(doc.lines[0].name, 'new-form-line-1');
      assert.equal(doc.__islocal, undefined);
      assert.equal(body.docinfo.name, doc.name);
      assert.equal(body.docinfo.permissions.write, 1);
      assert.deepEqual(
        (await readDoc(t, ORDER, doc.name)).lines.map((l: Json) => l.item),
        ['pen'],
      );
    });

    test('Save then Submit, Update and Cancel move a stored document as the form does', async () => {
      const saved = (await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('flow'), action: 'Save' }, clerk)).json().docs[0] as Json;
      const submitted = await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...saved, title: 'flow (sent)' }, action: 'Submit' }, clerk);
      assert.equal(submitted.statusCode, 200, submitted.body);
      const s = submitted.json().docs[0] as Json;
      assert.equal(s.docstatus, 1);
      assert.equal(s.title, 'flow (sent)');
      // Update after submit of a field that does not allow it is refused, and nothing changes.
      assertError(
        await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...s, title: 'changed' }, action: 'Update' }, clerk),
        417,
        'UpdateAfterSubmitError',
      );
      assert.equal((await readDoc(t, ORDER, s.name)).title, 'flow (sent)');
      const cancelled = await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: s, action: 'Cancel' }, clerk);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().docs[0].docstatus, 2);
      assert.equal((await readDoc(t, ORDER, s.name)).docstatus, 2);
    });

    test('a stale form, an unknown action and a reader without write rights are refused, changing nothing', async () => {
      const saved = (await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('stale'), action: 'Save' }, clerk)).json().docs[0] as Json;
      const ok = await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...saved, title: 'stale 2' }, action: 'Save' }, clerk);
      assert.equal(ok.statusCode, 200, ok.body);
      assertError(
        await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...saved, title: 'stale 3' }, action: 'Save' }, clerk),
        417,
        'TimestampMismatchError',
      );
      assertError(
        await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...ok.json().docs[0], title: 'x' }, action: 'Approve' }, clerk),
        417,
        'FrappeTypeError',
      );
      assertError(
        await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: { ...ok.json().docs[0], title: 'x' }, action: 'Save' }, reader),
        403,
        'PermissionError',
      );
      const before = await storedCount(t, ORDER);
      assertError(await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('by-reader'), action: 'Submit' }, reader), 403, 'PermissionError');
      assertError(await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: 'not json{', action: 'Save' }, clerk), 417, 'FrappeTypeError');
      assertError(await callMethod(t, 'GET', 'fw.desk.form.save.savedocs', { doc: newOrder('by-get'), action: 'Save' }, clerk), 403, 'PermissionError');
      assert.equal(await storedCount(t, ORDER), before);
      assert.equal((await readDoc(t, ORDER, saved.name)).title, 'stale 2');
    });

    test('cancel answers the cancelled document; a draft cannot be cancelled and a reader may not', async () => {
      const s = (await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('to-cancel'), action: 'Submit' }, clerk)).json().docs[0] as Json;
      assert.equal(s.docstatus, 1);
      assertError(await callMethod(t, 'POST', 'fw.desk.form.save.cancel', { doctype: ORDER, name: s.name }, reader), 403, 'PermissionError');
      assert.equal((await readDoc(t, ORDER, s.name)).docstatus, 1);
      const res = await callMethod(t, 'POST', 'frappe.desk.form.save.cancel', { doctype: ORDER, name: s.name }, clerk);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().docs[0].docstatus, 2);
      assert.equal(res.json().docinfo.name, s.name);
      const draft = (await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('draft'), action: 'Save' }, clerk)).json().docs[0] as Json;
      assertError(await callMethod(t, 'POST', 'fw.desk.form.save.cancel', { doctype: ORDER, name: draft.name }, clerk), 417, 'DocstatusTransitionError');
      assert.equal((await readDoc(t, ORDER, draft.name)).docstatus, 0);
    });

    test('is_document_amended names the amendment, else false; false for a caller who may not read', async () => {
      const s = (await callMethod(t, 'POST', 'fw.desk.form.save.savedocs', { doc: newOrder('amend-me'), action: 'Submit' }, clerk)).json().docs[0] as Json;
      assert.equal(messageOf(await callMethod(t, 'GET', 'fw.client.is_document_amended', { doctype: ORDER, docname: s.name }, clerk)), false);
      await callMethod(t, 'POST', 'fw.desk.form.save.cancel', { doctype: ORDER, name: s.name }, clerk);
      const amended = await insertDoc(t, ORDER, { title: 'amended', amended_from: s.name });
      assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.is_document_amended', { doctype: ORDER, docname: s.name }, clerk)), amended.name);
      const stranger = await tokenFor(t, (await createUser(t, { email: 'form-stranger@example.com', password: 'Stranger-Secret-42' })).name as string);
      assert.equal(messageOf(await callMethod(t, 'GET', 'fw.client.is_document_amended', { doctype: ORDER, docname: s.name }, stranger)), false);
      assertError(await callMethod(t, 'GET', 'fw.client.is_document_amended', { doctype: 'No Such', docname: 'x' }, clerk), 404, 'DoesNotExistError');
    });

    test('getdoctype answers any verb with user_settings, and use_cache for a current stamp', async () => {
      const first = await callMethod(t, 'POST', 'frappe.desk.form.load.getdoctype', { doctype: ORDER }, clerk);
      assert.equal(first.statusCode, 200, first.body);
      const body = first.json();
      assert.deepEqual(
        body.docs.map((d: Json) => d.name),
        [ORDER, LINE],
      );
      assert.equal(body.user_settings, '{}');
      const stamp = body.docs[0].modified as string;
      assert.match(stamp, /^\d{4}-/);
      const cached = await callMethod(t, 'GET', 'fw.desk.form.load.getdoctype', { doctype: ORDER, cached_timestamp: stamp }, clerk);
      assert.equal(cached.statusCode, 200, cached.body);
      assert.equal(cached.json().message, 'use_cache');
      assert.equal(cached.json().docs, undefined);
      assert.equal(cached.json().user_settings, '{}');
      const stale = await callMethod(t, 'GET', 'fw.desk.form.load.getdoctype', { doctype: ORDER, cached_timestamp: '2000-01-01 00:00:00.000000' }, clerk);
      assert.equal(stale.json().docs.length, 2);
      // A change to the child table is a new stamp: the cached copy is not used.
      const line = dataOfDocType(await t.request({ method: 'GET', url: `/api/resource/DocType/${encodeURIComponent(LINE)}` }));
      const res = await t.request({
        method: 'PUT',
        url: `/api/resource/DocType/${encodeURIComponent(LINE)}`,
        body: { fields: [...line.fields, { fieldname: 'note', fieldtype: 'Data' }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const after = await callMethod(t, 'GET', 'fw.desk.form.load.getdoctype', { doctype: ORDER, cached_timestamp: stamp }, clerk);
      assert.notEqual(after.json().message, 'use_cache');
      assert.ok((after.json().docs[1].fields as Json[]).some((f) => f.fieldname === 'note'));
    });

    test('user settings are saved per user, merged key by key, and ride on getdoctype', async () => {
      const saved = messageOf(
        await callMethod(
          t,
          'POST',
          'frappe.model.utils.user_settings.save',
          { doctype: ORDER, user_settings: JSON.stringify({ List: { page_length: 50 } }) },
          clerk,
        ),
      );
      assert.deepEqual(saved, { List: { page_length: 50 } });
      await callMethod(t, 'POST', 'fw.model.utils.user_settings.save', { doctype: ORDER, user_settings: { Report: { fields: ['title'] } } }, clerk);
      const got = JSON.parse(messageOf(await callMethod(t, 'GET', 'fw.model.utils.user_settings.get', { doctype: ORDER }, clerk)));
      assert.deepEqual(got, { List: { page_length: 50 }, Report: { fields: ['title'] } });
      assert.deepEqual(JSON.parse((await callMethod(t, 'GET', 'fw.desk.form.load.getdoctype', { doctype: ORDER }, clerk)).json().user_settings), got);
      // Another user's settings are their own.
      assert.equal(messageOf(await callMethod(t, 'GET', 'fw.model.utils.user_settings.get', { doctype: ORDER }, reader)), '{}');
      assertError(await callMethod(t, 'POST', 'fw.model.utils.user_settings.save', { doctype: ORDER, user_settings: '[1]' }, clerk), 417, 'FrappeTypeError');
      assertError(await callMethod(t, 'POST', 'fw.model.utils.user_settings.save', { doctype: 'No Such', user_settings: {} }, clerk), 404, 'DoesNotExistError');
      assertError(
        await callMethod(t, 'POST', 'fw.model.utils.user_settings.save', { doctype: ORDER, user_settings: { big: 'x'.repeat(70_000) } }, clerk),
        417,
        'FrappeTypeError',
      );
      assert.deepEqual(JSON.parse(messageOf(await callMethod(t, 'GET', 'fw.model.utils.user_settings.get', { doctype: ORDER }, clerk))), got);
    });

    test('linked documents: per DocType, only what the caller may read; refused for a document they may not read', async () => {
      const order = await insertDoc(t, ORDER, { title: 'linked' });
      const shipment = await insertDoc(t, SHIPMENT, { order: order.name, label: 'box' });
      const note = await insertDoc(t, NOTE, { order: order.name, text: 'hello' });
      await insertDoc(t, HIDDEN, { order: order.name });
      const all = messageOf(await callMethod(t, 'GET', 'frappe.desk.form.linked_with.get_linked_docs', { doctype: ORDER, name: order.name }));
      assert.deepEqual(Object.keys(all).sort(), [HIDDEN, NOTE, SHIPMENT].sort());
      assert.equal(all[SHIPMENT][0].name, shipment.name);
      assert.equal(all[SHIPMENT][0].docstatus, 0);
      assert.ok(all[SHIPMENT][0].modified);
      assert.equal(all[NOTE][0].text, 'hello');
      const mine = messageOf(await callMethod(t, 'GET', 'fw.desk.form.linked_with.get', { doctype: ORDER, docname: order.name }, clerk));
      assert.deepEqual(Object.keys(mine).sort(), [NOTE, SHIPMENT].sort());
      const narrowed = messageOf(
        await callMethod(
          t,
          'POST',
          'fw.desk.form.linked_with.get_linked_docs',
          { doctype: ORDER, name: order.name, linkinfo: { [NOTE]: { fieldname: ['order'] }, [HIDDEN]: { fieldname: ['order'] } } },
          clerk,
        ),
      );
      assert.deepEqual(Object.keys(narrowed), [NOTE]);
      assert.equal(narrowed[NOTE][0].name, note.name);
      const stranger = await tokenFor(t, (await createUser(t, { email: 'form-outsider@example.com', password: 'Outsider-Secret-42' })).name as string);
      assertError(
        await callMethod(t, 'GET', 'fw.desk.form.linked_with.get_linked_docs', { doctype: ORDER, name: order.name }, stranger),
        403,
        'PermissionError',
      );
      assertError(
        await callMethod(t, 'GET', 'fw.desk.form.linked_with.get_submitted_linked_docs', { doctype: ORDER, name: order.name }, stranger),
        403,
        'PermissionError',
      );
      assertError(await callMethod(t, 'GET', 'fw.desk.form.linked_with.get_linked_docs', { doctype: ORDER, name: 'no-such' }), 404, 'DoesNotExistError');
    });

    test('get_submitted_linked_docs follows submitted documents through submitted documents', async () => {
      const order = await insertDoc(t, ORDER, { title: 'root', docstatus: 1 });
      const sent = await insertDoc(t, SHIPMENT, { order: order.name, label: 'sent', docstatus: 1 });
      await insertDoc(t, SHIPMENT, { order: order.name, label: 'draft' });
      await insertDoc(t, NOTE, { order: order.name, text: 'not submittable' });
      const answer = messageOf(
        await callMethod(t, 'GET', 'frappe.desk.form.linked_with.get_submitted_linked_docs', { doctype: ORDER, name: order.name }, clerk),
      );
      assert.deepEqual(answer, { docs: [{ doctype: SHIPMENT, name: sent.name, docstatus: 1 }], count: 1 });
      // What the cancel refusal points at: the submitted shipment holds the order back.
      assertError(await callMethod(t, 'POST', 'fw.desk.form.save.cancel', { doctype: ORDER, name: order.name }, clerk), 417, 'LinkExistsError');
      assert.equal((await storedRow(t, ORDER, order.name))?.docstatus, 1);
    });
  });
}

function dataOfDocType(res: { statusCode: number; body: string; json(): any }): Json {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Json;
}
