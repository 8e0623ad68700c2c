import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, TIMESTAMP, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * The read side of fw.client (reference §14): get_list, get_count, get, get_value,
 * get_single_value, has_permission, with the reference's shapes and argument handling.
 */

const GADGET = 'Gadget';
const CODED = 'Coded Thing';

for (const dialect of testDialects()) {
  describe(`fw.client read methods (${dialect.name})`, () => {
    let t: TestSite;
    let nobody: string;
    const gadgets: Json[] = [];

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: GADGET,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
          { fieldname: 'colour', label: 'Colour', fieldtype: 'Data' },
        ],
      });
      await createDocType(t, { name: CODED, autoname: 'prompt', fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      for (const [title, qty, colour] of [
        ['A', 1, 'red'],
        ['B', 2, 'blue'],
        ['C', 3, 'red'],
      ] as const) {
        gadgets.push(await insertDoc(t, GADGET, { title, qty, colour }));
      }
      await insertDoc(t, CODED, { name: '3E002', title: 'numeric-looking name' });
      await createUser(t, { email: 'nobody@example.com', password: 'Nobody-Secret-42' });
      nobody = await tokenFor(t, 'nobody@example.com');
    });
    after(() => t.close());

    describe('get_list', () => {
      test('a frappe-ui POST with a filters object pages by limit_start/limit_page_length and ignores start/limit', async () => {
        const rows = messageOf(
          await callMethod(t, 'POST', 'frappe.client.get_list', {
            doctype: GADGET,
            fields: ['title', 'qty'],
            filters: { colour: 'red' },
            order_by: 'qty asc',
            start: 1,
            limit: 1,
            limit_start: 0,
            limit_page_length: 2,
          }),
        );
        assert.deepEqual(rows, [
          { title: 'A', qty: 1 },
          { title: 'C', qty: 3 },
        ]);
      });

      test('a GET with JSON-encoded fields and as_dict=0 answers arrays under fw.client too', async () => {
        const rows = messageOf(
          await callMethod(t, 'GET', 'fw.client.get_list', {
            doctype: GADGET,
            fields: ['title'],
            filters: [['qty', '>=', 2]],
            order_by: 'title desc',
            as_dict: 0,
          }),
        );
        assert.deepEqual(rows, [['C'], ['B']]);
      });

      test('without a page length at most 20 rows come back; limit alone does not change that', async () => {
        const docs = Array.from({ length: 22 }, (_, i) => ({ doctype: CODED, name: `bulk-${i}` }));
        messageOf(await callMethod(t, 'POST', 'frappe.client.insert_many', { docs }));
        assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: CODED })).length, 20);
        assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: CODED, limit: 5 })).length, 20);
        assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: CODED, limit_page_length: 0 })).length, 23);
      });

      test('a missing doctype is a 417 FrappeTypeError, an unknown field a 417 DataError', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.get_list', { fields: ['name'] }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: GADGET, fields: ['nope'] }), 417, 'DataError');
        assertError(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: GADGET, fields: '["title"' }), 417, 'DataError');
      });

      test('a negative limit_start is a 417 DataError and PATCH is refused with 403', async () => {
        assertError(await callMethod(t, 'POST', 'frappe.client.get_list', { doctype: GADGET, limit_start: -1 }), 417, 'DataError');
        assertError(await callMethod(t, 'PATCH', 'frappe.client.get_list', { doctype: GADGET }), 403, 'PermissionError');
      });
    });

    describe('get_count', () => {
      test('counts with and without filters, given as a dict or JSON text', async () => {
        assert.equal(messageOf(await callMethod(t, 'GET', 'frappe.client.get_count', { doctype: GADGET })), 3);
        assert.equal(messageOf(await callMethod(t, 'POST', 'frappe.client.get_count', { doctype: GADGET, filters: { colour: 'red' } })), 2);
        assert.equal(messageOf(await callMethod(t, 'GET', 'frappe.client.get_count', { doctype: GADGET, filters: '[["qty", ">", 1]]' })), 2);
      });

      test('a caller without read permission gets 403', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get_count', { doctype: GADGET }, nobody), 403, 'PermissionError');
      });
    });

    describe('get', () => {
      test('by name answers the v1 document: standard fields, doctype, no nulls', async () => {
        const doc = messageOf(await callMethod(t, 'GET', 'frappe.client.get', { doctype: GADGET, name: gadgets[1].name }));
        assert.equal(doc.name, gadgets[1].name);
        assert.equal(doc.doctype, GADGET);
        assert.equal(doc.title, 'B');
        assert.equal(doc.qty, 2);
        assert.match(doc.modified, TIMESTAMP);
        for (const key of ['owner', 'creation', 'modified_by', 'docstatus', 'idx']) assert.ok(key in doc, `has ${key}`);
        assert.ok(
          Object.values(doc).every((v) => v !== null),
          'v1 drops null fields',
        );
      });

      test('by filters answers the first match; {} matches any document', async () => {
        const byDict = messageOf(await callMethod(t, 'POST', 'frappe.client.get', { doctype: GADGET, filters: { title: 'C' } }));
        assert.equal(byDict.name, gadgets[2].name);
        const byList = messageOf(await callMethod(t, 'GET', 'frappe.client.get', { doctype: GADGET, filters: [['qty', '=', 1]] }));
        assert.equal(byList.name, gadgets[0].name);
        const any = messageOf(await callMethod(t, 'POST', 'frappe.client.get', { doctype: GADGET, filters: {} }));
        assert.ok(gadgets.some((g) => g.name === any.name));
      });

      test('a missing document, or no match, is a 404 DoesNotExistError', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get', { doctype: GADGET, name: 'no-such' }), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', 'frappe.client.get', { doctype: GADGET, filters: { title: 'Z' } }), 404, 'DoesNotExistError');
      });

      test('neither name nor filters is a 417 FrappeTypeError; without permission it is 403', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get', { doctype: GADGET }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'GET', 'frappe.client.get', { doctype: GADGET, name: gadgets[0].name }, nobody), 403, 'PermissionError');
      });
    });

    describe('get_value', () => {
      test('one field by name answers an object', async () => {
        const res = await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET, fieldname: 'title', filters: gadgets[0].name });
        assert.deepEqual(res.json(), { message: { title: 'A' } });
      });

      test('a JSON list of fields with as_dict=0 answers a list; one field a scalar', async () => {
        const list = await callMethod(t, 'GET', 'frappe.client.get_value', {
          doctype: GADGET,
          fieldname: '["title", "qty"]',
          filters: { colour: 'blue' },
          as_dict: 0,
        });
        assert.deepEqual(list.json(), { message: ['B', 2] });
        const scalar = await callMethod(t, 'POST', 'frappe.client.get_value', {
          doctype: GADGET,
          fieldname: 'qty',
          filters: { title: 'C' },
          as_dict: false,
        });
        assert.deepEqual(scalar.json(), { message: 3 });
      });

      test('a dict fieldname reads its keys', async () => {
        const args = { doctype: GADGET, fieldname: { title: 1, colour: 1 }, filters: { qty: 2 } };
        const res = await callMethod(t, 'POST', 'frappe.client.get_value', args);
        assert.deepEqual(res.json(), { message: { title: 'B', colour: 'blue' } });
      });

      test('no match answers {"message": {}} with as_dict and an empty body without', async () => {
        const asDict = await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET, fieldname: 'title', filters: { title: 'Z' } });
        assert.deepEqual(asDict.json(), { message: {} });
        const args = { doctype: GADGET, fieldname: 'title', filters: { title: 'Z' }, as_dict: 0 };
        const plain = await callMethod(t, 'GET', 'frappe.client.get_value', args);
        assert.equal(plain.statusCode, 200);
        assert.deepEqual(plain.json(), {});
      });

      test('a name that looks like a number stays a name', async () => {
        const res = await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: CODED, fieldname: 'title', filters: '3E002' });
        assert.deepEqual(res.json(), { message: { title: 'numeric-looking name' } });
      });

      test('an unknown field is a 417 DataError, broken JSON a 417, a missing fieldname a 417 FrappeTypeError', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET, fieldname: 'nope' }), 417, 'DataError');
        const broken = { doctype: GADGET, fieldname: 'title', filters: '[["title"' };
        assertError(await callMethod(t, 'GET', 'frappe.client.get_value', broken), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET, fieldname: '["title"' }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET }), 417, 'FrappeTypeError');
      });

      test('a caller without read permission gets 403', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get_value', { doctype: GADGET, fieldname: 'title' }, nobody), 403, 'PermissionError');
      });
    });

    describe('get_single_value', () => {
      test('a DocType that is not a Single is a 417; an unknown DocType a 404', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get_single_value', { doctype: GADGET, field: 'title' }), 417, 'ValidationError');
        assertError(await callMethod(t, 'GET', 'frappe.client.get_single_value', { doctype: 'No Such Type', field: 'x' }), 404, 'DoesNotExistError');
      });

      test('a Single with nothing stored answers the empty value of its field type; an unknown field of it is a 417 DataError', async () => {
        await createDocType(t, { name: 'Gadget Settings', issingle: 1, fields: [{ fieldname: 'motto', label: 'Motto', fieldtype: 'Data' }] });
        const res = await callMethod(t, 'GET', 'frappe.client.get_single_value', { doctype: 'Gadget Settings', field: 'motto' });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { message: '' });
        assertError(await callMethod(t, 'GET', 'frappe.client.get_single_value', { doctype: 'Gadget Settings', field: 'nope' }), 417, 'DataError');
      });

      test('a missing field argument is a 417 FrappeTypeError', async () => {
        assertError(await callMethod(t, 'GET', 'frappe.client.get_single_value', { doctype: GADGET }), 417, 'FrappeTypeError');
      });
    });

    describe('has_permission', () => {
      test('answers {"has_permission": bool} for the caller, read by default', async () => {
        const args = { doctype: GADGET, docname: gadgets[0].name };
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'frappe.client.has_permission', args)), { has_permission: true });
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'frappe.client.has_permission', { ...args, perm_type: 'write' }, nobody)), {
          has_permission: false,
        });
      });

      test('a missing document is a 404 for a reader and simply not permitted for others', async () => {
        const args = { doctype: GADGET, docname: 'no-such' };
        assertError(await callMethod(t, 'GET', 'frappe.client.has_permission', args), 404, 'DoesNotExistError');
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'frappe.client.has_permission', args, nobody)), { has_permission: false });
      });

      test('an unknown perm_type is a 417 and a missing docname a 417 FrappeTypeError', async () => {
        const args = { doctype: GADGET, docname: gadgets[0].name, perm_type: 'fly' };
        assertError(await callMethod(t, 'GET', 'frappe.client.has_permission', args), 417, 'DataError');
        assertError(await callMethod(t, 'GET', 'frappe.client.has_permission', { doctype: GADGET }), 417, 'FrappeTypeError');
      });
    });
  });
}
