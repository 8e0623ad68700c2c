import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrappeApp } from 'frappe-js-sdk';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, readDoc, storedCount } from '../helpers/document-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The whitelisted-method calls of frappe-js-sdk (reference §18.1) and frappe-ui's list fetch
 * (§18.2) over real HTTP: what each client sends, and what it hands back to its caller.
 */

const WIDGET = 'Widget';
const NAMED = 'Named Widget';

/** What the SDK throws: the error body spread, plus the HTTP status. */
interface SdkError {
  httpStatus: number;
  exc_type?: string;
}

async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  try {
    await call;
  } catch (err) {
    return err as SdkError;
  }
  assert.fail('the call was expected to fail');
}

for (const dialect of testDialects()) {
  describe(`frappe-js-sdk and frappe-ui method calls (${dialect.name})`, () => {
    let t: TestSite;
    let url: string;
    let app: FrappeApp;
    let token: string;

    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      token = t.adminAuth.slice('token '.length);
      app = new FrappeApp(url, { useToken: true, token: () => token, type: 'token' });
      await createDocType(t, {
        name: WIDGET,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'size', label: 'Size', fieldtype: 'Int' },
        ],
      });
      await createDocType(t, { name: NAMED, autoname: 'prompt', fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      await insertDoc(t, WIDGET, { title: 'small', size: 1 });
      await insertDoc(t, WIDGET, { title: 'large', size: 9 });
    });
    after(() => t.close());

    test('call.get sends JSON-encoded arguments and returns the whole body', async () => {
      const body = await app.call().get('frappe.client.get_list', {
        doctype: WIDGET,
        fields: ['title'],
        filters: [['size', '>', 5]],
      });
      assert.deepEqual(body, { message: [{ title: 'large' }] });
    });

    test('call.post inserts through frappe.client.insert and returns the whole body', async () => {
      const body = await app.call().post('frappe.client.insert', { doc: { doctype: WIDGET, title: 'posted', size: 4 } });
      assert.equal(body.message.doctype, WIDGET);
      assert.equal((await readDoc(t, WIDGET, body.message.name)).title, 'posted');
    });

    test('call.put and call.delete reach the methods that take those verbs', async () => {
      const put = await app.call().put('frappe.client.insert', { doc: { doctype: WIDGET, title: 'put' } });
      const deleted = await app.call().delete('frappe.client.delete', { doctype: WIDGET, name: put.message.name });
      assert.deepEqual(deleted, {});
    });

    test('a verb the method refuses rejects with 403', async () => {
      const err = await sdkError(app.call().get('frappe.client.insert', { doc: { doctype: WIDGET, title: 'no' } }));
      assert.equal(err.httpStatus, 403);
      assert.equal(err.exc_type, 'PermissionError');
    });

    test('db.getValue returns the whole body, as a dict or a value', async () => {
      const db = app.db();
      assert.deepEqual(await db.getValue(WIDGET, 'size', [['title', '=', 'large']]), { message: { size: 9 } });
      assert.deepEqual(await db.getValue(WIDGET, ['title', 'size'], [['title', '=', 'small']], false), { message: ['small', 1] });
      assert.deepEqual(await db.getValue(WIDGET, 'size', [['title', '=', 'small']], false), { message: 1 });
      assert.deepEqual(await db.getValue(WIDGET, 'size', [['title', '=', 'none']]), { message: {} });
    });

    test('db.getValue without a fieldname reads the name', async () => {
      const body = (await app.db().getValue(WIDGET, undefined, [['title', '=', 'small']])) as unknown as { message: { name: string } };
      assert.equal(typeof body.message.name, 'string');
    });

    test('db.setValue sets one field or a dict and returns the whole body with the document', async () => {
      const db = app.db();
      const doc = await insertDoc(t, WIDGET, { title: 'to set', size: 1 });
      const one = (await db.setValue(WIDGET, doc.name, 'size', 2)) as unknown as { message: { size: number } };
      assert.equal(one.message.size, 2);
      const many = (await db.setValue(WIDGET, doc.name, { title: 'set twice', size: 3 })) as unknown as { message: { title: string; size: number } };
      assert.equal(many.message.title, 'set twice');
      assert.equal(many.message.size, 3);
    });

    test('db.getCount answers the number', async () => {
      assert.equal(await app.db().getCount(WIDGET, [['size', '>=', 1]]), await storedCount(t, WIDGET));
    });

    test('db.renameDoc returns the whole body with the new name', async () => {
      await insertDoc(t, NAMED, { name: 'before', title: 'x' });
      assert.deepEqual(await app.db().renameDoc(NAMED, 'before', 'after'), { message: 'after' });
      assert.equal((await readDoc(t, NAMED, 'after')).title, 'x');
    });

    test('db.renameDoc onto a taken name rejects with 409', async () => {
      await insertDoc(t, NAMED, { name: 'one' });
      await insertDoc(t, NAMED, { name: 'two' });
      const err = await sdkError(app.db().renameDoc(NAMED, 'one', 'two'));
      assert.equal(err.httpStatus, 409);
      assert.equal(err.exc_type, 'DuplicateEntryError');
    });

    test("frappe-ui's list fetch: POST get_list with a JSON body and a filters object", async () => {
      const res = await fetch(`${url}/api/method/frappe.client.get_list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json', Authorization: `token ${token}` },
        body: JSON.stringify({
          doctype: WIDGET,
          fields: ['title', 'size'],
          filters: { size: ['>', 0] },
          order_by: 'size desc',
          start: 0,
          limit: 1,
          limit_start: 0,
          limit_page_length: 2,
        }),
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { message: { title: string; size: number }[] };
      assert.equal(body.message.length, 2);
      assert.ok(body.message[0].size >= body.message[1].size);
    });
  });
}
