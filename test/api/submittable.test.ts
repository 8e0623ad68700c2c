import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import {
  assertError,
  assertStoredAs,
  createDocType,
  dataOf,
  insertDoc,
  readDoc,
  resourceUrl,
  serverMessages,
  storedCount,
  type Json,
} from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Submittable documents over HTTP (reference §8): the docstatus table, update after submit,
 * amendments, discard, delete of submitted documents, the hooks each action fires, the rights
 * submit/cancel/amend, and the ways clients reach them (PUT, fw.client.submit/cancel, document
 * methods). Every refusal is checked to leave the stored document as it was.
 */

const ORDER = 'Purchase Order';
const ORDER_ITEM = 'Purchase Order Item';
const PLAIN = 'Plain Note';
const HOOKED = 'Hooked Order';

for (const dialect of testDialects()) {
  describe(`submittable documents (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let approver: ActingUser;
    const hookLog: string[] = [];

    const put = (name: string, body: Json, doctype = ORDER) => t.request({ method: 'PUT', url: resourceUrl(doctype, name), body });
    const draft = (body: Json = {}) =>
      insertDoc(t, ORDER, { title: 'Bolts', amount: 10, note: 'first', items: [{ item: 'bolt', qty: 2, remark: 'r' }], ...body });
    const submitted = async (body: Json = {}) => dataOf(await put(String((await draft(body)).name), { docstatus: 1 }));
    const cancelled = async (body: Json = {}) => dataOf(await put(String((await submitted(body)).name), { docstatus: 2 }));

    /** Sends a request that must be refused, and checks the document is stored as before. */
    async function refused(name: string, send: () => Promise<LightMyRequestResponse>, status: number, excType: string): Promise<Json> {
      const stored = await readDoc(t, ORDER, name);
      const body = assertError(await send(), status, excType);
      await assertStoredAs(t, ORDER, stored);
      return body;
    }

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Order Clerk');
      await createRole(t, 'Order Approver');
      clerk = await createUser(t, 'clerk@example.com', { roles: ['Order Clerk'] });
      approver = await createUser(t, 'approver@example.com', { roles: ['Order Approver'] });
      await createDocType(t, {
        name: ORDER_ITEM,
        istable: 1,
        fields: [
          { fieldname: 'item', label: 'Item', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'remark', label: 'Remark', fieldtype: 'Data', allow_on_submit: 1 },
        ],
      });
      await createDocType(t, {
        name: ORDER,
        is_submittable: 1,
        autoname: 'PO-.#####',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Int' },
          { fieldname: 'note', label: 'Note', fieldtype: 'Small Text', allow_on_submit: 1 },
          { fieldname: 'items', label: 'Items', fieldtype: 'Table', options: ORDER_ITEM },
          { fieldname: 'extras', label: 'Extras', fieldtype: 'Table', options: ORDER_ITEM, allow_on_submit: 1 },
        ],
        permissions: [
          { role: 'System Manager', submit: 1, cancel: 1, amend: 1 },
          { role: 'Order Clerk', delete: 0 },
          { role: 'Order Approver', submit: 1, cancel: 1, amend: 1 },
        ],
      });
      await createDocType(t, { name: PLAIN, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: HOOKED,
        is_submittable: 1,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1, amend: 1 }],
      });
      const events = [
        'before_insert',
        'before_validate',
        'validate',
        'before_save',
        'before_submit',
        'before_update_after_submit',
        'before_cancel',
        'after_insert',
        'on_update',
        'on_submit',
        'on_update_after_submit',
        'on_cancel',
        'on_discard',
        'on_change',
      ] as const;
      for (const event of events) {
        t.site.hooks.on(HOOKED, event, async (_args, next) => {
          hookLog.push(event);
          await next();
        });
      }
    });
    after(() => t.close());

    describe('the DocType', () => {
      test('a submittable DocType gets an amended_from field: a read-only Link to itself that is not copied', async () => {
        const def = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocType', ORDER) }));
        const field = (def.fields as Json[]).find((f) => f.fieldname === 'amended_from');
        assert.ok(field, 'amended_from is added');
        assert.equal(field.fieldtype, 'Link');
        assert.equal(field.options, ORDER);
        assert.equal(field.read_only, 1);
        assert.equal(field.no_copy, 1);
      });

      test('a DocType made submittable later gets amended_from when it is saved', async () => {
        const def = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocType', PLAIN) }));
        assert.ok(!(def.fields as Json[]).some((f) => f.fieldname === 'amended_from'));
        await createDocType(t, { name: 'Late Submittable', fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
        const later = dataOf(await t.request({ method: 'PUT', url: resourceUrl('DocType', 'Late Submittable'), body: { is_submittable: 1 } }));
        assert.deepEqual(
          (later.fields as Json[]).map((f) => f.fieldname),
          ['title', 'amended_from'],
        );
      });
    });

    describe('allowed transitions', () => {
      test('a new document is a draft (0) and its rows are drafts too', async () => {
        const doc = await draft();
        assert.equal(doc.docstatus, 0);
        assert.equal(doc.items[0].docstatus, 0);
      });

      test('PUT docstatus 1 submits a draft, and the child rows follow', async () => {
        const doc = await submitted();
        assert.equal(doc.docstatus, 1);
        const stored = await readDoc(t, ORDER, doc.name);
        assert.equal(stored.docstatus, 1);
        assert.equal(stored.items[0].docstatus, 1);
      });

      test('an insert with docstatus 1 is stored submitted', async () => {
        const doc = await insertDoc(t, ORDER, { title: 'Direct', docstatus: 1, items: [{ item: 'nut', qty: 1 }] });
        const stored = await readDoc(t, ORDER, doc.name);
        assert.equal(stored.docstatus, 1);
        assert.equal(stored.items[0].docstatus, 1);
      });

      test('PUT docstatus 2 cancels a submitted document, and the child rows follow', async () => {
        const doc = await cancelled();
        assert.equal(doc.docstatus, 2);
        const stored = await readDoc(t, ORDER, doc.name);
        assert.equal(stored.docstatus, 2);
        assert.equal(stored.items[0].docstatus, 2);
      });

      test('a submit runs validation: a submitted document must have its mandatory fields', async () => {
        const doc = await draft();
        const body = await refused(doc.name, () => put(doc.name, { docstatus: 1, title: '' }), 417, 'MandatoryError');
        assert.match(body.exception, /title/);
      });
    });

    describe('refused transitions', () => {
      test('an insert with docstatus 2 is DocstatusTransitionError and stores nothing', async () => {
        const count = await storedCount(t, ORDER);
        const body = assertError(
          await t.request({ method: 'POST', url: resourceUrl(ORDER), body: { title: 'X', docstatus: 2 } }),
          417,
          'DocstatusTransitionError',
        );
        assert.deepEqual(serverMessages(body), ['Cannot change docstatus from 0 (Draft) to 2 (Cancelled)']);
        assert.equal(await storedCount(t, ORDER), count);
      });

      test('a draft cannot be cancelled: 0 -> 2 is DocstatusTransitionError', async () => {
        const doc = await draft();
        const body = await refused(doc.name, () => put(doc.name, { docstatus: 2 }), 417, 'DocstatusTransitionError');
        assert.deepEqual(serverMessages(body), ['Cannot change docstatus from 0 (Draft) to 2 (Cancelled)']);
      });

      test('a submitted document cannot go back to draft: 1 -> 0 is DocstatusTransitionError', async () => {
        const doc = await submitted();
        const body = await refused(doc.name, () => put(doc.name, { docstatus: 0 }), 417, 'DocstatusTransitionError');
        assert.deepEqual(serverMessages(body), ['Cannot change docstatus from 1 (Submitted) to 0 (Draft)']);
      });

      for (const change of [{ note: 'late' }, { docstatus: 0 }, { docstatus: 1 }, { docstatus: 2 }]) {
        test(`a cancelled document cannot be edited (${JSON.stringify(change)}): ValidationError`, async () => {
          const doc = await cancelled();
          const body = await refused(doc.name, () => put(doc.name, change), 417, 'ValidationError');
          assert.deepEqual(serverMessages(body), ['Cannot edit cancelled document']);
        });
      }

      test('a docstatus other than 0, 1 or 2 is a 417', async () => {
        const doc = await draft();
        await refused(doc.name, () => put(doc.name, { docstatus: 3 }), 417, 'ValidationError');
      });

      test('a DocType that is not submittable refuses docstatus 1 and 2 on insert and save with 417', async () => {
        const count = await storedCount(t, PLAIN);
        for (const docstatus of [1, 2]) {
          assertError(await t.request({ method: 'POST', url: resourceUrl(PLAIN), body: { title: 'p', docstatus } }), 417, 'ValidationError');
        }
        assert.equal(await storedCount(t, PLAIN), count);
        const note = await insertDoc(t, PLAIN, { title: 'p' });
        for (const docstatus of [1, 2]) {
          const body = assertError(await put(note.name, { docstatus }, PLAIN), 417, 'ValidationError');
          assert.match(serverMessages(body)[0], /not submittable/);
        }
        assert.deepEqual(await readDoc(t, PLAIN, note.name), note);
      });

      test('fw.client.submit on a non-submittable DocType is a 417', async () => {
        const note = await insertDoc(t, PLAIN, { title: 'p' });
        assertError(await callMethod(t, 'POST', 'fw.client.submit', { doc: note }), 417, 'ValidationError');
        assert.equal((await readDoc(t, PLAIN, note.name)).docstatus, 0);
      });
    });

    describe('update after submit', () => {
      test('a field with allow_on_submit may change on a submitted document', async () => {
        const doc = await submitted();
        const saved = dataOf(await put(doc.name, { note: 'changed after submit' }));
        assert.equal(saved.note, 'changed after submit');
        assert.equal(saved.docstatus, 1);
        assert.equal((await readDoc(t, ORDER, doc.name)).note, 'changed after submit');
      });

      test('a field without allow_on_submit is UpdateAfterSubmitError naming the field and both values', async () => {
        const doc = await submitted({ title: 'Before' });
        const body = await refused(doc.name, () => put(doc.name, { title: 'After' }), 417, 'UpdateAfterSubmitError');
        assert.deepEqual(serverMessages(body), ['Not allowed to change Title after submission from Before to After']);
      });

      test('sending the same value again is not a change', async () => {
        const doc = await submitted();
        assert.equal(dataOf(await put(doc.name, { title: doc.title, amount: doc.amount, note: 'n2' })).note, 'n2');
      });

      test('a row field with allow_on_submit may change; one without is refused with its row number', async () => {
        const doc = await submitted();
        const rows = (doc.items as Json[]).map((r) => ({ ...r, remark: 'after' }));
        assert.equal(dataOf(await put(doc.name, { items: rows })).items[0].remark, 'after');
        const changed = (doc.items as Json[]).map((r) => ({ ...r, qty: 99 }));
        const body = await refused(doc.name, () => put(doc.name, { items: changed }), 417, 'UpdateAfterSubmitError');
        assert.deepEqual(serverMessages(body), ['Row #1: Not allowed to change Qty after submission from 2 to 99']);
      });

      test('a table without allow_on_submit keeps its rows; one with it may gain rows', async () => {
        const doc = await submitted();
        const more = [...(doc.items as Json[]), { item: 'washer', qty: 5 }];
        const body = await refused(doc.name, () => put(doc.name, { items: more }), 417, 'UpdateAfterSubmitError');
        assert.match(serverMessages(body)[0], /^Not allowed to change Items after submission from 1 to 2$/);
        const saved = dataOf(await put(doc.name, { extras: [{ item: 'gift', qty: 1 }] }));
        assert.equal(saved.extras.length, 1);
        assert.equal(saved.extras[0].docstatus, 1);
      });

      test('a cancel cannot change fields without allow_on_submit either', async () => {
        const doc = await submitted({ title: 'Kept' });
        await refused(doc.name, () => put(doc.name, { docstatus: 2, title: 'Sneaky' }), 417, 'UpdateAfterSubmitError');
      });
    });

    describe('amend', () => {
      test('amending a cancelled document names the copy <name>-1, and amending that gives <name>-2', async () => {
        const original = await cancelled({ title: 'Amend me' });
        const first = await insertDoc(t, ORDER, { title: 'Amended', amended_from: original.name });
        assert.equal(first.name, `${original.name}-1`);
        assert.equal(first.docstatus, 0);
        assert.equal(first.amended_from, original.name);
        dataOf(await put(first.name, { docstatus: 1 }));
        dataOf(await put(first.name, { docstatus: 2 }));
        const second = await insertDoc(t, ORDER, { title: 'Amended again', amended_from: first.name });
        assert.equal(second.name, `${original.name}-2`);
      });

      for (const state of ['draft', 'submitted'] as const) {
        test(`a ${state} document cannot be amended: 417 and nothing is stored`, async () => {
          const source = state === 'draft' ? await draft() : await submitted();
          const count = await storedCount(t, ORDER);
          const body = assertError(
            await t.request({ method: 'POST', url: resourceUrl(ORDER), body: { title: 'A', amended_from: source.name } }),
            417,
            'ValidationError',
          );
          assert.deepEqual(serverMessages(body), [`${ORDER} ${source.name} cannot be amended because it is not cancelled`]);
          assert.equal(await storedCount(t, ORDER), count);
        });
      }
    });

    describe('discard', () => {
      test('run_doc_method discard sets a draft to cancelled', async () => {
        const doc = await draft();
        const res = await callMethod(t, 'POST', 'run_doc_method', { dt: ORDER, dn: doc.name, method: 'discard' });
        assert.equal(messageOf(res).docstatus, 2);
        assert.equal(res.json().docs[0].docstatus, 2);
        const stored = await readDoc(t, ORDER, doc.name);
        assert.equal(stored.docstatus, 2);
        assert.equal(stored.items[0].docstatus, 2);
      });

      test('only drafts may be discarded', async () => {
        const doc = await submitted();
        const body = await refused(
          doc.name,
          () => callMethod(t, 'POST', 'run_doc_method', { dt: ORDER, dn: doc.name, method: 'discard' }),
          417,
          'ValidationError',
        );
        assert.match(serverMessages(body)[0], /only draft documents can be discarded/);
      });
    });

    describe('delete', () => {
      test('a submitted document cannot be deleted', async () => {
        const doc = await submitted();
        const body = await refused(doc.name, () => t.request({ method: 'DELETE', url: resourceUrl(ORDER, doc.name) }), 417, 'ValidationError');
        assert.deepEqual(serverMessages(body), [`${ORDER} ${doc.name}: Submitted Record cannot be deleted. You must Cancel it first.`]);
      });

      test('a cancelled document and a draft can be deleted', async () => {
        for (const doc of [await cancelled(), await draft()]) {
          assert.equal((await t.request({ method: 'DELETE', url: resourceUrl(ORDER, doc.name) })).statusCode, 202);
          assertError(await t.request({ method: 'GET', url: resourceUrl(ORDER, doc.name) }), 404, 'DoesNotExistError');
        }
      });
    });

    describe('hooks', () => {
      test('each action fires its own hooks, in order', async () => {
        hookLog.length = 0;
        const doc = await insertDoc(t, HOOKED, { title: 'h' });
        assert.deepEqual(hookLog.splice(0), ['before_insert', 'before_validate', 'validate', 'before_save', 'after_insert', 'on_update', 'on_change']);
        dataOf(await put(doc.name, { docstatus: 1 }, HOOKED));
        assert.deepEqual(hookLog.splice(0), ['before_validate', 'validate', 'before_submit', 'on_update', 'on_submit', 'on_change']);
        dataOf(await put(doc.name, {}, HOOKED));
        assert.deepEqual(hookLog.splice(0), ['before_update_after_submit', 'on_update_after_submit', 'on_change']);
        dataOf(await put(doc.name, { docstatus: 2 }, HOOKED));
        assert.deepEqual(hookLog.splice(0), ['before_cancel', 'on_cancel', 'on_change']);
        const other = await insertDoc(t, HOOKED, { title: 'd' });
        hookLog.length = 0;
        messageOf(await callMethod(t, 'POST', 'run_doc_method', { dt: HOOKED, dn: other.name, method: 'discard' }));
        assert.deepEqual(hookLog.splice(0), ['on_discard', 'on_change']);
      });

      test('an insert with docstatus 1 fires before_submit instead of before_save, and on_submit after on_update', async () => {
        hookLog.length = 0;
        await insertDoc(t, HOOKED, { title: 'direct', docstatus: 1 });
        assert.deepEqual(hookLog.splice(0), [
          'before_insert',
          'before_validate',
          'validate',
          'before_submit',
          'after_insert',
          'on_update',
          'on_submit',
          'on_change',
        ]);
      });
    });

    describe('permissions', () => {
      test('a user with write but no submit gets 403 on every way to submit', async () => {
        const doc = await draft();
        const fresh = await readDoc(t, ORDER, doc.name);
        const attempts = [
          () => actAs(t, clerk, { method: 'PUT', url: resourceUrl(ORDER, doc.name), body: { docstatus: 1 } }),
          () => callMethod(t, 'POST', 'fw.client.submit', { doc: fresh }, clerk.auth),
          () => callMethod(t, 'POST', 'run_doc_method', { dt: ORDER, dn: doc.name, method: 'submit' }, clerk.auth),
          () => actAs(t, clerk, { method: 'POST', url: `${resourceUrl(ORDER, doc.name)}?run_method=submit` }),
        ];
        for (const attempt of attempts) await refused(doc.name, attempt, 403, 'PermissionError');
        const count = await storedCount(t, ORDER);
        assertError(await actAs(t, clerk, { method: 'POST', url: resourceUrl(ORDER), body: { title: 'c', docstatus: 1 } }), 403, 'PermissionError');
        assert.equal(await storedCount(t, ORDER), count);
      });

      test('the same user may still save drafts', async () => {
        const doc = await draft();
        assert.equal(dataOf(await actAs(t, clerk, { method: 'PUT', url: resourceUrl(ORDER, doc.name), body: { amount: 11 } })).amount, 11);
      });

      test('without cancel a submitted document cannot be cancelled, nor changed after submit', async () => {
        const doc = await submitted();
        await refused(doc.name, () => callMethod(t, 'POST', 'fw.client.cancel', { doctype: ORDER, name: doc.name }, clerk.auth), 403, 'PermissionError');
        await refused(doc.name, () => actAs(t, clerk, { method: 'PUT', url: resourceUrl(ORDER, doc.name), body: { note: 'x' } }), 403, 'PermissionError');
      });

      test('without amend a cancelled document cannot be amended', async () => {
        const source = await cancelled();
        const count = await storedCount(t, ORDER);
        const res = await actAs(t, clerk, { method: 'POST', url: resourceUrl(ORDER), body: { title: 'a', amended_from: source.name } });
        assertError(res, 403, 'PermissionError');
        assert.equal(await storedCount(t, ORDER), count);
      });

      test('a user with submit, cancel and amend may do all three', async () => {
        const doc = dataOf(await actAs(t, approver, { method: 'POST', url: resourceUrl(ORDER), body: { title: 'ok' } }));
        assert.equal(dataOf(await actAs(t, approver, { method: 'PUT', url: resourceUrl(ORDER, doc.name), body: { docstatus: 1 } })).docstatus, 1);
        assert.equal(messageOf(await callMethod(t, 'POST', 'fw.client.cancel', { doctype: ORDER, name: doc.name }, approver.auth)).docstatus, 2);
        const amended = dataOf(await actAs(t, approver, { method: 'POST', url: resourceUrl(ORDER), body: { title: 'ok', amended_from: doc.name } }));
        assert.equal(amended.name, `${doc.name}-1`);
      });
    });

    describe('fw.client.submit and fw.client.cancel', () => {
      test('fw.client.submit saves the whole document with docstatus 1 and answers it', async () => {
        const doc = await readDoc(t, ORDER, (await draft()).name);
        const answered = messageOf(await callMethod(t, 'POST', 'fw.client.submit', { doc: { ...doc, amount: 42 } }));
        assert.equal(answered.docstatus, 1);
        assert.equal(answered.amount, 42);
        assert.ok(answered.modified > doc.modified);
        const stored = await readDoc(t, ORDER, doc.name);
        assert.equal(stored.docstatus, 1);
        assert.equal(stored.amount, 42);
      });

      test('fw.client.submit with a stale modified is TimestampMismatchError', async () => {
        const doc = await readDoc(t, ORDER, (await draft()).name);
        dataOf(await put(doc.name, { amount: 1 }));
        await refused(doc.name, () => callMethod(t, 'PUT', 'fw.client.submit', { doc }), 417, 'TimestampMismatchError');
      });

      test('fw.client.submit of a document without a name inserts it submitted', async () => {
        const answered = messageOf(await callMethod(t, 'POST', 'fw.client.submit', { doc: { doctype: ORDER, title: 'new' } }));
        assert.equal(answered.docstatus, 1);
        assert.equal((await readDoc(t, ORDER, answered.name)).docstatus, 1);
      });

      test('fw.client.cancel cancels by doctype and name and answers the document', async () => {
        const doc = await submitted();
        const answered = messageOf(await callMethod(t, 'PUT', 'fw.client.cancel', { doctype: ORDER, name: doc.name }));
        assert.equal(answered.docstatus, 2);
        assert.equal(answered.name, doc.name);
        assert.equal((await readDoc(t, ORDER, doc.name)).docstatus, 2);
      });

      test('fw.client.submit and cancel refuse GET', async () => {
        const doc = await submitted();
        assertError(await callMethod(t, 'GET', 'fw.client.cancel', { doctype: ORDER, name: doc.name }), 403, 'PermissionError');
        assert.equal((await readDoc(t, ORDER, doc.name)).docstatus, 1);
      });
    });

    describe('document methods', () => {
      test('run_doc_method submit and cancel move the document on and send it back in docs', async () => {
        const doc = await draft();
        const submittedRes = await callMethod(t, 'POST', 'run_doc_method', { dt: ORDER, dn: doc.name, method: 'submit' });
        assert.equal(messageOf(submittedRes).docstatus, 1);
        assert.equal(submittedRes.json().docs[0].docstatus, 1);
        const cancelledRes = await callMethod(t, 'POST', 'run_doc_method', { dt: ORDER, dn: doc.name, method: 'cancel' });
        assert.equal(cancelledRes.json().docs[0].docstatus, 2);
        assert.equal((await readDoc(t, ORDER, doc.name)).docstatus, 2);
      });

      test('run_doc_method submit with docs saves the client copy, whose modified must be current', async () => {
        const doc = await readDoc(t, ORDER, (await draft()).name);
        const res = await callMethod(t, 'POST', 'run_doc_method', { docs: { ...doc, amount: 77 }, method: 'submit' });
        assert.equal(res.json().docs[0].amount, 77);
        assert.equal((await readDoc(t, ORDER, doc.name)).docstatus, 1);
        const stale = await readDoc(t, ORDER, (await draft()).name);
        dataOf(await put(stale.name, { amount: 3 }));
        await refused(stale.name, () => callMethod(t, 'POST', 'run_doc_method', { docs: stale, method: 'submit' }), 417, 'TimestampMismatchError');
      });

      test('?run_method=submit on the resource submits with POST and is refused with GET', async () => {
        const doc = await draft();
        await refused(doc.name, () => t.request({ method: 'GET', url: `${resourceUrl(ORDER, doc.name)}?run_method=submit` }), 403, 'PermissionError');
        const res = await t.request({ method: 'POST', url: `${resourceUrl(ORDER, doc.name)}?run_method=submit` });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal((await readDoc(t, ORDER, doc.name)).docstatus, 1);
      });
    });
  });
}
