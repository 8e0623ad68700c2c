import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
import { createUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Links between documents (reference §8): a document other documents link to cannot be deleted
 * (Link fields, Link fields in child rows, Dynamic Links), a submitted document linked from other
 * submitted documents cannot be cancelled, and fetch_from copies values through a link.
 */

const SUPPLIER = 'Supplier';
const INVOICE = 'Supplier Invoice';
const INVOICE_LINE = 'Supplier Invoice Line';
const LEDGER = 'Ledger Note';
const FOLDER = 'Folder';
const FOLDER_ENTRY = 'Folder Entry';
const CONTRACT = 'Contract';
const PAYMENT = 'Payment';
const PRODUCT = 'Product';
const QUOTE = 'Quote';
const QUOTE_LINE = 'Quote Line';
const PURCHASE_NOTE = 'Purchase Note';

for (const dialect of testDialects()) {
  describe(`links between documents (${dialect.name})`, () => {
    let t: TestSite;
    const del = (doctype: string, name: string) => t.request({ method: 'DELETE', url: resourceUrl(doctype, name) });
    const put = (doctype: string, name: string, body: Json) => t.request({ method: 'PUT', url: resourceUrl(doctype, name), body });
    const supplier = (code: string) => insertDoc(t, SUPPLIER, { code, title: `Supplier ${code}` });

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: SUPPLIER,
        autoname: 'field:code',
        fields: [
          { fieldname: 'code', label: 'Code', fieldtype: 'Data' },
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'city', label: 'City', fieldtype: 'Data' },
          { fieldname: 'parent_supplier', label: 'Parent Supplier', fieldtype: 'Link', options: SUPPLIER },
        ],
      });
      await createDocType(t, {
        name: INVOICE_LINE,
        istable: 1,
        fields: [{ fieldname: 'vendor', label: 'Vendor', fieldtype: 'Link', options: SUPPLIER }],
      });
      await createDocType(t, {
        name: INVOICE,
        fields: [
          { fieldname: 'supplier', label: 'Supplier', fieldtype: 'Link', options: SUPPLIER },
          { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: INVOICE_LINE },
        ],
      });
      await createDocType(t, {
        name: LEDGER,
        fields: [
          { fieldname: 'against_type', label: 'Against Type', fieldtype: 'Link', options: 'DocType' },
          { fieldname: 'against', label: 'Against', fieldtype: 'Dynamic Link', options: 'against_type' },
        ],
      });
      // A child table linking back to its parent DocType: the parent exists first, the table comes later.
      const folderTitle = { fieldname: 'title', label: 'Title', fieldtype: 'Data' };
      await createDocType(t, { name: FOLDER, autoname: 'field:title', fields: [folderTitle] });
      await createDocType(t, {
        name: FOLDER_ENTRY,
        istable: 1,
        fields: [{ fieldname: 'folder', label: 'Folder', fieldtype: 'Link', options: FOLDER }],
      });
      const entries = { fieldname: 'entries', label: 'Entries', fieldtype: 'Table', options: FOLDER_ENTRY };
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('DocType', FOLDER), body: { fields: [folderTitle, entries] } }));
      await createDocType(t, {
        name: CONTRACT,
        is_submittable: 1,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1, amend: 1 }],
      });
      await createDocType(t, {
        name: PAYMENT,
        is_submittable: 1,
        fields: [{ fieldname: 'contract', label: 'Contract', fieldtype: 'Link', options: CONTRACT }],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1, amend: 1 }],
      });
      await createDocType(t, {
        name: PRODUCT,
        autoname: 'field:code',
        fields: [
          { fieldname: 'code', label: 'Code', fieldtype: 'Data' },
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'price', label: 'Price', fieldtype: 'Currency' },
        ],
      });
      await createDocType(t, {
        name: QUOTE_LINE,
        istable: 1,
        fields: [
          { fieldname: 'product', label: 'Product', fieldtype: 'Link', options: PRODUCT },
          { fieldname: 'product_title', label: 'Product Title', fieldtype: 'Data', fetch_from: 'product.title' },
        ],
      });
      await createDocType(t, {
        name: QUOTE,
        fields: [
          { fieldname: 'product', label: 'Product', fieldtype: 'Link', options: PRODUCT },
          { fieldname: 'product_title', label: 'Product Title', fieldtype: 'Data', fetch_from: 'product.title' },
          { fieldname: 'price', label: 'Price', fieldtype: 'Currency', fetch_from: 'product.price', fetch_if_empty: 1 },
          { fieldname: 'product_owner', label: 'Product Owner', fieldtype: 'Data', fetch_from: 'product.owner' },
          { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: QUOTE_LINE },
        ],
      });
      await createDocType(t, {
        name: PURCHASE_NOTE,
        fields: [
          { fieldname: 'supplier', label: 'Supplier', fieldtype: 'Link', options: SUPPLIER },
          { fieldname: 'product', label: 'Product', fieldtype: 'Link', options: PRODUCT },
        ],
      });
    });
    after(() => t.close());

    describe('delete', () => {
      test('a document another document links to cannot be deleted; the message names the referrer', async () => {
        const target = await supplier('ACME');
        const invoice = await insertDoc(t, INVOICE, { supplier: target.name });
        const body = assertError(await del(SUPPLIER, target.name), 417, 'LinkExistsError');
        assert.deepEqual(serverMessages(body), [`Cannot delete or cancel because ${SUPPLIER} ACME is linked with ${INVOICE} ${invoice.name}`]);
        await assertStoredAs(t, SUPPLIER, target);
        assert.equal((await del(INVOICE, invoice.name)).statusCode, 202);
        assert.equal((await del(SUPPLIER, target.name)).statusCode, 202);
      });

      test('a link from a child row counts, and the message names the parent document', async () => {
        const target = await supplier('ROWCO');
        const invoice = await insertDoc(t, INVOICE, { lines: [{ vendor: target.name }] });
        const body = assertError(await del(SUPPLIER, target.name), 417, 'LinkExistsError');
        assert.deepEqual(serverMessages(body), [`Cannot delete or cancel because ${SUPPLIER} ROWCO is linked with ${INVOICE} ${invoice.name}`]);
        await assertStoredAs(t, SUPPLIER, target);
      });

      test('a Dynamic Link set to the document counts', async () => {
        const target = await supplier('DYNCO');
        const note = await insertDoc(t, LEDGER, { against_type: SUPPLIER, against: target.name });
        const body = assertError(await del(SUPPLIER, target.name), 417, 'LinkExistsError');
        assert.deepEqual(serverMessages(body), [`Cannot delete or cancel because ${SUPPLIER} DYNCO is linked with ${LEDGER} ${note.name}`]);
        dataOf(await put(LEDGER, note.name, { against_type: INVOICE, against: (await insertDoc(t, INVOICE, {})).name }));
        assert.equal((await del(SUPPLIER, target.name)).statusCode, 202);
      });

      test('a link from another document of the same DocType counts, a link to itself does not', async () => {
        const head = await supplier('HEAD');
        const branch = await insertDoc(t, SUPPLIER, { code: 'BRANCH', parent_supplier: head.name });
        assertError(await del(SUPPLIER, head.name), 417, 'LinkExistsError');
        const loner = await supplier('LONER');
        dataOf(await put(SUPPLIER, loner.name, { parent_supplier: loner.name }));
        assert.equal((await del(SUPPLIER, loner.name)).statusCode, 202);
        assert.equal((await del(SUPPLIER, branch.name)).statusCode, 202);
        assert.equal((await del(SUPPLIER, head.name)).statusCode, 202);
      });

      test("the document's own child rows linking back to it do not hold it", async () => {
        await insertDoc(t, FOLDER, { title: 'Self' });
        dataOf(await put(FOLDER, 'Self', { entries: [{ folder: 'Self' }] }));
        assert.equal((await del(FOLDER, 'Self')).statusCode, 202);
      });

      test('a child row of another document linking to it does hold it', async () => {
        await insertDoc(t, FOLDER, { title: 'Inner' });
        await insertDoc(t, FOLDER, { title: 'Outer', entries: [{ folder: 'Inner' }] });
        const body = assertError(await del(FOLDER, 'Inner'), 417, 'LinkExistsError');
        assert.deepEqual(serverMessages(body), [`Cannot delete or cancel because ${FOLDER} Inner is linked with ${FOLDER} Outer`]);
      });

      test('a ToDo about the document does not hold it', async () => {
        const target = await supplier('TODOCO');
        await insertDoc(t, 'ToDo', { description: 'call them', reference_type: SUPPLIER, reference_name: target.name });
        assert.equal((await del(SUPPLIER, target.name)).statusCode, 202);
      });

      test('version history does not hold a DocType back from being deleted', async () => {
        await createDocType(t, { name: 'Tracked Thing', track_changes: 1, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
        const doc = await insertDoc(t, 'Tracked Thing', { title: 'a' });
        dataOf(await put('Tracked Thing', doc.name, { title: 'b' }));
        assert.equal((await del('Tracked Thing', doc.name)).statusCode, 202);
        assert.equal((await del('DocType', 'Tracked Thing')).statusCode, 202);
      });
    });

    describe('cancel', () => {
      const submittedContract = async () => {
        const doc = await insertDoc(t, CONTRACT, { title: 'c' });
        return dataOf(await put(CONTRACT, doc.name, { docstatus: 1 }));
      };

      test('a submitted document linked from a submitted document cannot be cancelled', async () => {
        const contract = await submittedContract();
        const payment = await insertDoc(t, PAYMENT, { contract: contract.name, docstatus: 1 });
        const stored = await readDoc(t, CONTRACT, contract.name);
        const body = assertError(await callMethod(t, 'POST', 'fw.client.cancel', { doctype: CONTRACT, name: contract.name }), 417, 'LinkExistsError');
        assert.deepEqual(serverMessages(body), [`Cannot delete or cancel because ${CONTRACT} ${contract.name} is linked with ${PAYMENT} ${payment.name}`]);
        await assertStoredAs(t, CONTRACT, stored);
        messageOf(await callMethod(t, 'POST', 'fw.client.cancel', { doctype: PAYMENT, name: payment.name }));
        assert.equal(messageOf(await callMethod(t, 'POST', 'fw.client.cancel', { doctype: CONTRACT, name: contract.name })).docstatus, 2);
      });

      test('links from drafts and from cancelled documents do not hold a cancel back', async () => {
        const contract = await submittedContract();
        await insertDoc(t, PAYMENT, { contract: contract.name });
        assert.equal(dataOf(await put(CONTRACT, contract.name, { docstatus: 2 })).docstatus, 2);
      });

      test('a cancelled document still linked from a cancelled one cannot be deleted', async () => {
        const contract = await submittedContract();
        const payment = await insertDoc(t, PAYMENT, { contract: contract.name, docstatus: 1 });
        dataOf(await put(PAYMENT, payment.name, { docstatus: 2 }));
        dataOf(await put(CONTRACT, contract.name, { docstatus: 2 }));
        assertError(await del(CONTRACT, contract.name), 417, 'LinkExistsError');
      });

      test('a submittable document cannot link to a cancelled one: 417 CancelledLinkError, nothing changed', async () => {
        const contract = await submittedContract();
        const draft = await insertDoc(t, PAYMENT, {});
        dataOf(await put(CONTRACT, contract.name, { docstatus: 2 }));
        const count = await storedCount(t, PAYMENT);
        const insert = await t.request({ method: 'POST', url: resourceUrl(PAYMENT), body: { contract: contract.name } });
        const body = assertError(insert, 417, 'CancelledLinkError');
        assert.deepEqual(serverMessages(body), [`Cannot link cancelled document: Contract: ${contract.name}`]);
        assert.equal(await storedCount(t, PAYMENT), count);
        assertError(await put(PAYMENT, draft.name, { contract: contract.name }), 417, 'CancelledLinkError');
        await assertStoredAs(t, PAYMENT, draft);
      });

      test('a DocType that is not submittable may still point at a cancelled document (a ToDo about it)', async () => {
        const contract = await submittedContract();
        dataOf(await put(CONTRACT, contract.name, { docstatus: 2 }));
        const todo = await insertDoc(t, 'ToDo', { description: 'follow up', reference_type: CONTRACT, reference_name: contract.name });
        assert.equal(todo.reference_name, contract.name);
      });

      test('an amendment does not hold its cancelled original back, but holds it from deletion', async () => {
        const contract = await submittedContract();
        dataOf(await put(CONTRACT, contract.name, { docstatus: 2 }));
        const amended = await insertDoc(t, CONTRACT, { title: 'c2', amended_from: contract.name, docstatus: 1 });
        assert.equal(amended.name, `${contract.name}-1`);
        const body = assertError(await del(CONTRACT, contract.name), 417, 'LinkExistsError');
        assert.match(serverMessages(body)[0], new RegExp(`is linked with ${CONTRACT} ${amended.name}$`));
        // Cancelling the amendment is not held back by its own amended_from link.
        assert.equal(dataOf(await put(CONTRACT, amended.name, { docstatus: 2 })).docstatus, 2);
      });
    });

    describe('fetch_from', () => {
      test("ToDo's assigned_by_full_name is fetched from the assigning user", async () => {
        const user = await createUser(t, 'fetchy@example.com');
        const todo = await insertDoc(t, 'ToDo', { description: 'd', assigned_by: user.name });
        assert.equal(todo.assigned_by_full_name, 'fetchy');
        assert.equal((await readDoc(t, 'ToDo', todo.name)).assigned_by_full_name, 'fetchy');
      });

      test('an insert copies the linked values, standard fields included', async () => {
        await insertDoc(t, PRODUCT, { code: 'P1', title: 'Pump', price: 12.5 });
        const quote = await insertDoc(t, QUOTE, { product: 'P1' });
        assert.equal(quote.product_title, 'Pump');
        assert.equal(quote.price, 12.5);
        assert.equal(quote.product_owner, 'Administrator');
      });

      test('a value edited by hand survives a save that leaves the link alone; changing the link fetches again', async () => {
        await insertDoc(t, PRODUCT, { code: 'P2', title: 'Valve', price: 3 });
        await insertDoc(t, PRODUCT, { code: 'P3', title: 'Hose', price: 7 });
        const quote = await insertDoc(t, QUOTE, { product: 'P2' });
        assert.equal(dataOf(await put(QUOTE, quote.name, { product_title: 'Custom valve' })).product_title, 'Custom valve');
        const relinked = dataOf(await put(QUOTE, quote.name, { product: 'P3' }));
        assert.equal(relinked.product_title, 'Hose');
        assert.equal(relinked.price, 3, 'fetch_if_empty leaves a value that is set');
      });

      test('fetch_if_empty fills the field again once it is emptied', async () => {
        await insertDoc(t, PRODUCT, { code: 'P4', title: 'Tap', price: 9 });
        const quote = await insertDoc(t, QUOTE, { product: 'P4', price: 4 });
        assert.equal(quote.price, 4, 'a value sent on insert is kept');
        assert.equal(dataOf(await put(QUOTE, quote.name, { price: null })).price, 9);
      });

      test('child rows fetch through their own links', async () => {
        await insertDoc(t, PRODUCT, { code: 'P5', title: 'Gasket' });
        const quote = await insertDoc(t, QUOTE, { lines: [{ product: 'P5' }] });
        assert.equal(quote.lines[0].product_title, 'Gasket');
      });

      test('a link to a missing document is still a LinkValidationError', async () => {
        assertError(await t.request({ method: 'POST', url: resourceUrl(QUOTE), body: { product: 'NOPE' } }), 417, 'LinkValidationError');
      });
    });

    describe('link checks', () => {
      // A save reads every link value of the document and its rows at once (docs/architecture.md,
      // "The document pipeline"): these pin what that must still report, and in which order.
      const invoice = (body: Json) => t.request({ method: 'POST', url: resourceUrl(INVOICE), body });

      test("hundreds of rows linking to hundreds of documents are all checked, past one statement's worth of names", async () => {
        const codes = Array.from({ length: 520 }, (_, i) => `BULK-${i}`);
        for (let i = 0; i < codes.length; i += 200) {
          const docs = codes.slice(i, i + 200).map((code) => ({ doctype: SUPPLIER, code, title: code }));
          messageOf(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs }));
        }
        const lines = [...codes, ...codes.slice(0, 30)].map((vendor) => ({ vendor }));
        const saved = dataOf(await invoice({ supplier: 'BULK-7', lines }));
        assert.equal(saved.lines.length, 550);

        const before = await storedCount(t, INVOICE);
        const missing = lines.map((line, i) => (i === 540 ? { vendor: 'BULK-MISSING' } : line));
        const res = assertError(await invoice({ supplier: 'BULK-7', lines: missing }), 417, 'LinkValidationError');
        assert.match(serverMessages(res).join('\n'), /Could not find Vendor: BULK-MISSING/);
        assert.equal(await storedCount(t, INVOICE), before, 'nothing stored');
      });

      test('the first missing link in document order is the one reported', async () => {
        const res = assertError(await invoice({ supplier: 'NOPE-HEAD', lines: [{ vendor: 'NOPE-ROW' }] }), 417, 'LinkValidationError');
        assert.match(serverMessages(res).join('\n'), /Could not find Supplier: NOPE-HEAD/);
        const rows = assertError(await invoice({ lines: [{ vendor: 'NOPE-ROW-1' }, { vendor: 'NOPE-ROW-2' }] }), 417, 'LinkValidationError');
        assert.match(serverMessages(rows).join('\n'), /Could not find Vendor: NOPE-ROW-1/);
      });

      test('a Dynamic Link without its DocType is refused before a later missing link is looked up', async () => {
        const res = await t.request({ method: 'POST', url: resourceUrl(LEDGER), body: { against: 'anything' } });
        assert.match(serverMessages(assertError(res, 417, 'LinkValidationError')).join('\n'), /Against Type must be set before Against/);
        // A Link to DocType is answered from metadata when the DocType is known, and still refused when not.
        const unknown = await t.request({ method: 'POST', url: resourceUrl(LEDGER), body: { against_type: 'No Such Type', against: 'x' } });
        assert.match(serverMessages(assertError(unknown, 417, 'LinkValidationError')).join('\n'), /Could not find Against Type: No Such Type/);
        const known = await t.request({ method: 'POST', url: resourceUrl(LEDGER), body: { against_type: SUPPLIER, against: 'NO-SUCH-SUPPLIER' } });
        assert.match(serverMessages(assertError(known, 417, 'LinkValidationError')).join('\n'), /Could not find Against: NO-SUCH-SUPPLIER/);
      });

      test('the same name in two linked DocTypes is looked up in each table, not taken from the other', async () => {
        await supplier('SAME-NAME');
        const res = await t.request({ method: 'POST', url: resourceUrl(PURCHASE_NOTE), body: { supplier: 'SAME-NAME', product: 'SAME-NAME' } });
        assert.match(serverMessages(assertError(res, 417, 'LinkValidationError')).join('\n'), /Could not find Product: SAME-NAME/);
        await insertDoc(t, PRODUCT, { code: 'SAME-NAME', title: 'Same' });
        const note = await insertDoc(t, PURCHASE_NOTE, { supplier: 'SAME-NAME', product: 'SAME-NAME' });
        assert.equal(note.product, 'SAME-NAME');
      });
    });
  });
}
