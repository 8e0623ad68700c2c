import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertAbsent, assertError, createDocType, insertDoc, readDoc, storedCount, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The single-document writes of fw.client (reference §14, child rows §11): set_value, insert,
 * insert_many, save and delete, their verbs, argument checks and return shapes.
 */

const CRATE = 'Crate';
const ITEM = 'Crate Item';

for (const dialect of testDialects()) {
  describe(`fw.client write methods (${dialect.name})`, () => {
    let t: TestSite;
    const crate = (body: Json = {}) => insertDoc(t, CRATE, { title: 'a crate', ...body });

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: ITEM,
        istable: 1,
        fields: [
          { fieldname: 'sku', label: 'SKU', fieldtype: 'Data' },
          { fieldname: 'count', label: 'Count', fieldtype: 'Int' },
        ],
      });
      await createDocType(t, {
        name: CRATE,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'items', label: 'Items', fieldtype: 'Table', options: ITEM },
        ],
      });
    });
    after(() => t.close());

    describe('set_value', () => {
      test('one field by name answers the whole document with the new value', async () => {
        const doc = await crate({ qty: 1 });
        const out = messageOf(await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: CRATE, name: doc.name, fieldname: 'qty', value: 7 }));
        assert.equal(out.name, doc.name);
        assert.equal(out.qty, 7);
        assert.equal(out.title, 'a crate');
        assert.ok(out.modified > doc.modified);
        assert.equal((await readDoc(t, CRATE, doc.name)).qty, 7);
      });

      test('value 0 is stored as 0, and PUT is accepted too', async () => {
        const doc = await crate({ qty: 5 });
        const out = messageOf(await callMethod(t, 'PUT', 'frappe.client.set_value', { doctype: CRATE, name: doc.name, fieldname: 'qty', value: 0 }));
        assert.equal(out.qty, 0);
      });

      test('a dict of fields, native or JSON text, sets them all', async () => {
        const doc = await crate();
        const dict = { doctype: CRATE, name: doc.name, fieldname: { title: 'renamed', qty: 3 } };
        messageOf(await callMethod(t, 'POST', 'frappe.client.set_value', dict));
        const out = messageOf(await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: CRATE, name: doc.name, fieldname: '{"qty": 4}' }));
        assert.equal(out.title, 'renamed');
        assert.equal(out.qty, 4);
      });

      test('a dict carrying a stale modified is a 417 TimestampMismatchError, as a frappe-ui save is', async () => {
        const doc = await crate();
        const stale = doc.modified;
        messageOf(await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: CRATE, name: doc.name, fieldname: 'qty', value: 1 }));
        const res = await callMethod(t, 'POST', 'frappe.client.set_value', {
          doctype: CRATE,
          name: doc.name,
          fieldname: { ...doc, qty: 2, doctype: undefined, name: undefined, modified: stale },
        });
        assertError(res, 417, 'TimestampMismatchError');
        assert.equal((await readDoc(t, CRATE, doc.name)).qty, 1);
      });

      test('a standard field is a 417 and leaves the document alone', async () => {
        const doc = await crate();
        const res = await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: CRATE, name: doc.name, fieldname: 'owner', value: 'someone' });
        assertError(res, 417, 'ValidationError');
        assert.equal((await readDoc(t, CRATE, doc.name)).owner, 'Administrator');
      });

      test('GET is refused with 403; a missing name is a 417 FrappeTypeError', async () => {
        const doc = await crate();
        const args = { doctype: CRATE, name: doc.name, fieldname: 'qty', value: 1 };
        assertError(await callMethod(t, 'GET', 'frappe.client.set_value', args), 403, 'PermissionError');
        assertError(await callMethod(t, 'POST', 'frappe.client.set_value', { doctype: CRATE, fieldname: 'qty', value: 1 }), 417, 'FrappeTypeError');
      });

      test('on a child row it changes the row and answers the parent', async () => {
        const doc = await crate({
          items: [
            { sku: 'x', count: 1 },
            { sku: 'y', count: 2 },
          ],
        });
        const row = doc.items[1];
        const args = { doctype: ITEM, name: row.name, fieldname: 'count', value: 9 };
        const out = messageOf(await callMethod(t, 'POST', 'frappe.client.set_value', args));
        assert.equal(out.name, doc.name);
        assert.deepEqual(
          out.items.map((r: Json) => [r.sku, r.count]),
          [
            ['x', 1],
            ['y', 9],
          ],
        );
      });
    });

    describe('insert', () => {
      test('a doc naming its doctype is inserted and answered as stored', async () => {
        const out = messageOf(await callMethod(t, 'POST', 'frappe.client.insert', { doc: { doctype: CRATE, title: 'inserted', qty: 2 } }));
        assert.equal(out.doctype, CRATE);
        assert.equal(out.title, 'inserted');
        assert.equal((await readDoc(t, CRATE, out.name)).qty, 2);
      });

      test('the doc may come as JSON text, through PUT', async () => {
        const out = messageOf(await callMethod(t, 'PUT', 'frappe.client.insert', { doc: JSON.stringify({ doctype: CRATE, title: 'as text' }) }));
        assert.equal(out.title, 'as text');
      });

      test('GET on insert is refused with 403', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.insert', { doc: { doctype: CRATE, title: 'no' } }), 403, 'PermissionError');
      });

      test('no doc, broken JSON or a doc without doctype are 417 FrappeTypeError', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', {}), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', { doc: '{"doctype": ' }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', { doc: { title: 'x' } }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', { doc: [1, 2] }), 417, 'FrappeTypeError');
      });

      test('a missing required field is a 417 MandatoryError', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', { doc: { doctype: CRATE } }), 417, 'MandatoryError');
      });

      test('a child row is appended to its parent, which is answered', async () => {
        const doc = await crate({ items: [{ sku: 'x', count: 1 }] });
        const out = messageOf(
          await callMethod(t, 'POST', 'frappe.client.insert', {
            doc: { doctype: ITEM, parenttype: CRATE, parent: doc.name, parentfield: 'items', sku: 'new', count: 5 },
          }),
        );
        assert.equal(out.name, doc.name);
        assert.deepEqual(
          out.items.map((r: Json) => [r.sku, r.idx]),
          [
            ['x', 1],
            ['new', 2],
          ],
        );
        assert.equal((await readDoc(t, CRATE, doc.name)).items.length, 2);
      });

      test('a child row without its parent is a 417', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.insert', { doc: { doctype: ITEM, sku: 'lost' } }), 417, 'ValidationError');
      });
    });

    describe('insert_many', () => {
      test('inserts every document and answers their names', async () => {
        const names = messageOf(
          await callMethod(t, 'POST', 'frappe.client.insert_many', {
            docs: [
              { doctype: CRATE, title: 'many 1' },
              { doctype: CRATE, title: 'many 2' },
            ],
          }),
        );
        assert.equal(names.length, 2);
        assert.deepEqual(await Promise.all(names.map(async (n: string) => (await readDoc(t, CRATE, n)).title)), ['many 1', 'many 2']);
      });

      test('one answer per document sent, in order: two child rows of one parent give its name twice', async () => {
        const parent = await crate({ title: 'rows parent' });
        const row = (sku: string) => ({ doctype: ITEM, parenttype: CRATE, parent: parent.name, parentfield: 'items', sku });
        const names = messageOf(
          await callMethod(t, 'POST', 'frappe.client.insert_many', {
            docs: [row('r1'), { doctype: CRATE, title: 'between' }, row('r2')],
          }),
        );
        assert.equal(names.length, 3);
        assert.equal(names[0], parent.name);
        assert.notEqual(names[1], parent.name);
        assert.equal(names[2], parent.name);
        assert.equal((await readDoc(t, CRATE, names[1])).title, 'between');
        assert.deepEqual(
          ((await readDoc(t, CRATE, parent.name)).items as Json[]).map((r) => r.sku),
          ['r1', 'r2'],
        );
      });

      test('more than 200 documents is a 417 and stores none', async () => {
        const before = await storedCount(t, CRATE);
        const docs = Array.from({ length: 201 }, (_, i) => ({ doctype: CRATE, title: `over ${i}` }));
        assertError(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs }), 417, 'ValidationError');
        assert.equal(await storedCount(t, CRATE), before);
      });

      test('200 documents are accepted', async () => {
        const docs = Array.from({ length: 200 }, (_, i) => ({ doctype: CRATE, title: `cap ${i}` }));
        assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs })).length, 200);
      });

      test('one refused document rolls back the ones before it', async () => {
        const before = await storedCount(t, CRATE);
        const docs = [{ doctype: CRATE, title: 'kept?' }, { doctype: CRATE }, { doctype: CRATE, title: 'after' }];
        assertError(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs }), 417, 'MandatoryError');
        assert.equal(await storedCount(t, CRATE), before);
      });

      test('docs that are not a list are a 417 FrappeTypeError; GET is 403', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs: { doctype: CRATE } }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'GET', 'frappe.client.insert_many', { docs: [] }), 403, 'PermissionError');
      });
    });

    describe('save', () => {
      test('the whole document with its modified is saved and answered', async () => {
        const doc = await crate({ qty: 1 });
        const out = messageOf(await callMethod(t, 'POST', 'frappe.client.save', { doc: { ...doc, qty: 8 } }));
        assert.equal(out.qty, 8);
        assert.ok(out.modified > doc.modified);
      });

      test('saving a stale copy is a 417 TimestampMismatchError', async () => {
        const doc = await crate();
        messageOf(await callMethod(t, 'POST', 'frappe.client.save', { doc: { ...doc, qty: 1 } }));
        assertError(await callMethod(t, 'POST', 'frappe.client.save', { doc: { ...doc, qty: 2 } }), 417, 'TimestampMismatchError');
        assert.equal((await readDoc(t, CRATE, doc.name)).qty, 1);
      });

      test('a document without a name is inserted', async () => {
        const out = messageOf(await callMethod(t, 'PUT', 'frappe.client.save', { doc: JSON.stringify({ doctype: CRATE, title: 'saved new' }) }));
        assert.equal((await readDoc(t, CRATE, out.name)).title, 'saved new');
      });
    });

    describe('delete', () => {
      test('DELETE answers an empty body and the document is gone', async () => {
        const doc = await crate();
        const res = await callMethod(t, 'DELETE', 'frappe.client.delete', { doctype: CRATE, name: doc.name });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), {});
        await assertAbsent(t, CRATE, doc.name);
      });

      test('POST deletes too; GET and PUT are refused with 403', async () => {
        const doc = await crate();
        assertError(await callMethod(t, 'GET', 'frappe.client.delete', { doctype: CRATE, name: doc.name }), 403, 'PermissionError');
        assertError(await callMethod(t, 'PUT', 'frappe.client.delete', { doctype: CRATE, name: doc.name }), 403, 'PermissionError');
        assert.deepEqual((await callMethod(t, 'POST', 'frappe.client.delete', { doctype: CRATE, name: doc.name })).json(), {});
        await assertAbsent(t, CRATE, doc.name);
      });

      test('a missing document is a 404', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.delete', { doctype: CRATE, name: 'no-such' }), 404, 'DoesNotExistError');
      });

      test('a child row is removed from its parent', async () => {
        const doc = await crate({ items: [{ sku: 'x' }, { sku: 'y' }] });
        assert.deepEqual((await callMethod(t, 'POST', 'frappe.client.delete', { doctype: ITEM, name: doc.items[0].name })).json(), {});
        assert.deepEqual(
          (await readDoc(t, CRATE, doc.name)).items.map((r: Json) => [r.sku, r.idx]),
          [['y', 1]],
        );
      });
    });
  });
}
