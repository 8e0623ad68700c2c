import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, readDoc, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * fw.client.bulk_update (reference §14): each `{doctype, docname, ...fields}` is saved on its own;
 * refused items come back in `failed_docs` while the others are stored, on both engines (a failed
 * statement must not poison PostgreSQL's transaction).
 */

const PART = 'Part';

for (const dialect of testDialects()) {
  describe(`fw.client.bulk_update (${dialect.name})`, () => {
    let t: TestSite;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: PART,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'code', label: 'Code', fieldtype: 'Data', unique: 1 },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        ],
      });
    });
    after(() => t.close());

    test('stores the good items and reports each refused one with its exception', async () => {
      const a = await insertDoc(t, PART, { title: 'a', code: 'A', qty: 10 });
      const b = await insertDoc(t, PART, { title: 'b', code: 'B', qty: 10 });
      const c = await insertDoc(t, PART, { title: 'c', code: 'C', qty: 10 });
      const docs = [
        { doctype: PART, docname: a.name, qty: 1 },
        // Refused by validation, before any SQL runs.
        { doctype: PART, docname: b.name, title: '', qty: 2, flags: { ignore: 1 } },
        // Refused by the database's unique index: the statement fails inside the transaction.
        { doctype: PART, docname: c.name, code: 'A', qty: 3 },
        { doctype: PART, docname: 'no-such-part', qty: 4 },
        { doctype: PART, docname: c.name, qty: 5 },
      ];
      const out = messageOf(await callMethod(t, 'POST', 'frappe.client.bulk_update', { docs }));

      assert.deepEqual(
        out.failed_docs.map((f: Json) => [f.doc.docname, f.exc.split(':')[0]]),
        [
          [b.name, 'MandatoryError'],
          [c.name, 'UniqueValidationError'],
          ['no-such-part', 'DoesNotExistError'],
        ],
      );
      assert.deepEqual(out.failed_docs[0].doc, { doctype: PART, docname: b.name, title: '', qty: 2 }, 'the item comes back without flags');
      assert.equal((await readDoc(t, PART, a.name)).qty, 1);
      const storedB = await readDoc(t, PART, b.name);
      assert.equal(storedB.title, 'b');
      assert.equal(storedB.qty, 10, 'nothing of a refused item is stored');
      const storedC = await readDoc(t, PART, c.name);
      assert.equal(storedC.code, 'C');
      assert.equal(storedC.qty, 5, 'an item after a failed statement is stored');
    });

    test('everything good answers an empty failed_docs; docs as JSON text work through PUT', async () => {
      const p = await insertDoc(t, PART, { title: 'p' });
      const docs = JSON.stringify([{ doctype: PART, docname: p.name, qty: 9 }]);
      const out = messageOf(await callMethod(t, 'PUT', 'frappe.client.bulk_update', { docs }));
      assert.deepEqual(out, { failed_docs: [] });
      assert.equal((await readDoc(t, PART, p.name)).qty, 9);
    });

    test('an item without doctype or docname, or not an object, is reported, not fatal', async () => {
      const out = messageOf(await callMethod(t, 'POST', 'frappe.client.bulk_update', { docs: [{ docname: 'x' }, { doctype: PART }, 'nope'] }));
      assert.deepEqual(
        out.failed_docs.map((f: Json) => f.exc.split(':')[0]),
        ['FrappeTypeError', 'FrappeTypeError', 'FrappeTypeError'],
      );
    });

    test('docs that are not a list are a 417 FrappeTypeError; GET is 403', async () => {
      assertError(await callMethod(t, 'POST', 'frappe.client.bulk_update', { docs: '{"doctype": 1}' }), 417, 'FrappeTypeError');
      assertError(await callMethod(t, 'POST', 'frappe.client.bulk_update', {}), 417, 'FrappeTypeError');
      assertError(await callMethod(t, 'GET', 'frappe.client.bulk_update', { docs: [] }), 403, 'PermissionError');
    });
  });
}
