import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, resourceUrl, TIMESTAMP, uniqueDocTypeName, v2Url, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/** A custom Single with a default, a mandatory field, coercible fields and a Link. */
async function createSingle(t: TestSite, permissions: Json[] = [{ role: 'System Manager' }]): Promise<string> {
  const name = uniqueDocTypeName('Shop Settings');
  await createDocType(t, {
    name,
    issingle: 1,
    permissions,
    fields: [
      { fieldname: 'shop_name', label: 'Shop Name', fieldtype: 'Data', reqd: 1, default: 'Corner Shop' },
      { fieldname: 'max_items', label: 'Max Items', fieldtype: 'Int', default: '5' },
      { fieldname: 'open', label: 'Open', fieldtype: 'Check' },
      { fieldname: 'colour', label: 'Colour', fieldtype: 'Select', options: 'Red\nBlue' },
      { fieldname: 'opened_on', label: 'Opened On', fieldtype: 'Date' },
      { fieldname: 'rate', label: 'Rate', fieldtype: 'Float' },
      { fieldname: 'manager', label: 'Manager', fieldtype: 'Link', options: 'User' },
      { fieldname: 'motto', label: 'Motto', fieldtype: 'Data' },
    ],
  });
  return name;
}

function method(t: TestSite, path: string, args: Json, verb: 'GET' | 'POST' = 'GET') {
  if (verb === 'POST') return t.request({ method: 'POST', url: `/api/method/${path}`, body: args });
  const query = new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return t.request({ method: 'GET', url: `/api/method/${path}?${query}` });
}

async function readSingle(t: TestSite, doctype: string): Promise<Json> {
  return dataOf(await t.request({ method: 'GET', url: resourceUrl(doctype, doctype) }));
}

async function saveSingle(t: TestSite, doctype: string, body: Json): Promise<Json> {
  return dataOf(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body }));
}

for (const dialect of testDialects()) {
  describe(`Single DocTypes (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('a Single never saved answers its defaults under its own name', async () => {
      const doctype = await createSingle(t);
      const doc = await readSingle(t, doctype);
      assert.equal(doc.name, doctype);
      assert.equal(doc.doctype, doctype);
      assert.equal(doc.docstatus, 0);
      assert.equal(doc.shop_name, 'Corner Shop');
      assert.equal(doc.max_items, 5);
      assert.equal(doc.colour, 'Red', 'a Select without default takes its first option');
      assert.ok(!('motto' in doc) && !('modified' in doc), 'v1 omits fields without a value');
      const v2 = dataOf(await t.request({ method: 'GET', url: v2Url(doctype, doctype) }));
      assert.equal(v2.motto, null);
      assert.equal(v2.modified, null);
    });

    test('a PUT coerces values, stamps modified and is read back the same way', async () => {
      const doctype = await createSingle(t);
      const saved = await saveSingle(t, doctype, { max_items: '12', open: true, opened_on: '2031-01-15T00:00:00', rate: '2.5', motto: 'Fresh' });
      assert.equal(saved.max_items, 12);
      assert.equal(saved.open, 1);
      assert.equal(saved.opened_on, '2031-01-15');
      assert.equal(saved.rate, 2.5);
      assert.match(String(saved.modified), TIMESTAMP);
      assert.equal(saved.modified_by, 'Administrator');
      assert.equal(saved.owner, 'Administrator');
      assert.deepEqual(await readSingle(t, doctype), saved);
    });

    test('values of the wrong type, a missing mandatory value and a broken Link are 417', async () => {
      const doctype = await createSingle(t);
      assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { max_items: 'many' } }), 417, 'ValidationError');
      assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { opened_on: '2031-02-30' } }), 417, 'ValidationError');
      const missing = assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { shop_name: '  ' } }), 417, 'MandatoryError');
      assert.match(String(missing.exception), /shop_name/);
      assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { manager: 'nobody@example.com' } }), 417, 'LinkValidationError');
      const doc = await readSingle(t, doctype);
      assert.equal(doc.max_items, 5, 'nothing of a refused save is stored');
      assert.equal(doc.shop_name, 'Corner Shop');
    });

    test('a save carrying a stale modified is 417 TimestampMismatchError; the current one succeeds', async () => {
      const doctype = await createSingle(t);
      const first = await saveSingle(t, doctype, { motto: 'one' });
      const second = await saveSingle(t, doctype, { motto: 'two', modified: first.modified });
      assert.ok(String(second.modified) > String(first.modified), 'modified increases on every save');
      assertError(
        await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { motto: 'three', modified: first.modified } }),
        417,
        'TimestampMismatchError',
      );
      assert.equal((await readSingle(t, doctype)).motto, 'two');
    });

    test('get_single_value and fw.client.get read what was saved', async () => {
      const doctype = await createSingle(t);
      await saveSingle(t, doctype, { max_items: 7, motto: 'Hello' });
      for (const prefix of ['fw', 'frappe']) {
        const value = await method(t, `${prefix}.client.get_single_value`, { doctype, field: 'max_items' });
        assert.equal(value.statusCode, 200, value.body);
        assert.deepEqual(value.json(), { message: 7 });
      }
      const defaulted = await method(t, 'fw.client.get_single_value', { doctype, field: 'shop_name' });
      assert.deepEqual(defaulted.json(), { message: 'Corner Shop' });
      const got = await method(t, 'fw.client.get', { doctype });
      assert.equal(got.statusCode, 200, got.body);
      assert.equal(got.json().message.name, doctype);
      assert.equal(got.json().message.motto, 'Hello');
      assert.equal(got.json().message.max_items, 7);
    });

    test('get_single_value casts empty values as the reference does and refuses unknown fields', async () => {
      const doctype = await createSingle(t);
      assert.deepEqual((await method(t, 'fw.client.get_single_value', { doctype, field: 'motto' })).json(), { message: '' });
      assert.deepEqual((await method(t, 'fw.client.get_single_value', { doctype, field: 'rate' })).json(), { message: 0 });
      assertError(await method(t, 'fw.client.get_single_value', { doctype, field: 'no_such_field' }), 417, 'DataError');
      assertError(await method(t, 'fw.client.get_single_value', { doctype: 'ToDo', field: 'description' }), 417, 'ValidationError');
    });

    test('set_value on a Single saves one field or a dict of fields', async () => {
      const doctype = await createSingle(t);
      const one = await method(t, 'fw.client.set_value', { doctype, name: doctype, fieldname: 'max_items', value: '9' }, 'POST');
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().message.max_items, 9);
      const many = await method(t, 'frappe.client.set_value', { doctype, name: doctype, fieldname: { motto: 'Both', open: 1 } }, 'POST');
      assert.equal(many.statusCode, 200, many.body);
      const doc = await readSingle(t, doctype);
      assert.equal(doc.max_items, 9);
      assert.equal(doc.motto, 'Both');
      assert.equal(doc.open, 1);
      assertError(await method(t, 'fw.client.set_value', { doctype, name: 'Other', fieldname: 'motto', value: 'x' }, 'POST'), 404, 'DoesNotExistError');
    });

    test('fw.client.save and insert of a Single save its one document', async () => {
      const doctype = await createSingle(t);
      const saved = await method(t, 'fw.client.save', { doc: { doctype, name: doctype, motto: 'Saved' } }, 'POST');
      assert.equal(saved.statusCode, 200, saved.body);
      const inserted = await method(t, 'fw.client.insert', { doc: { doctype, max_items: 3 } }, 'POST');
      assert.equal(inserted.statusCode, 200, inserted.body);
      const doc = await readSingle(t, doctype);
      assert.equal(doc.motto, 'Saved');
      assert.equal(doc.max_items, 3);
    });

    test('another name is 404, a list or count is 417 DataError and deleting is 417', async () => {
      const doctype = await createSingle(t);
      assertError(await t.request({ method: 'GET', url: resourceUrl(doctype, 'Something Else') }), 404, 'DoesNotExistError');
      assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, 'Something Else'), body: { motto: 'x' } }), 404, 'DoesNotExistError');
      assertError(await t.request({ method: 'GET', url: resourceUrl(doctype) }), 417, 'DataError');
      assertError(await method(t, 'fw.client.get_list', { doctype }), 417, 'DataError');
      assertError(await method(t, 'fw.client.get_count', { doctype }), 417, 'DataError');
      assertError(await t.request({ method: 'DELETE', url: resourceUrl(doctype, doctype) }), 417, 'ValidationError');
      assertError(await method(t, 'fw.client.get', { doctype, name: 'Something Else' }), 404, 'DoesNotExistError');
    });

    test('a Table field of a Single keeps its rows, and a PUT with the table replaces them', async () => {
      const child = uniqueDocTypeName('Shop Shelf');
      await createDocType(t, { name: child, istable: 1, fields: [{ fieldname: 'label', label: 'Label', fieldtype: 'Data', reqd: 1 }] });
      const doctype = uniqueDocTypeName('Shelf Settings');
      await createDocType(t, { name: doctype, issingle: 1, fields: [{ fieldname: 'shelves', label: 'Shelves', fieldtype: 'Table', options: child }] });
      const saved = await saveSingle(t, doctype, { shelves: [{ label: 'top' }, { label: 'bottom' }] });
      assert.deepEqual(
        saved.shelves.map((r: Json) => [r.label, r.idx, r.parent, r.parenttype]),
        [
          ['top', 1, doctype, doctype],
          ['bottom', 2, doctype, doctype],
        ],
      );
      const kept = saved.shelves[1] as Json;
      await saveSingle(t, doctype, { shelves: [{ name: kept.name, label: 'bottom' }, { label: 'middle' }] });
      const doc = await readSingle(t, doctype);
      assert.deepEqual(
        doc.shelves.map((r: Json) => r.label),
        ['bottom', 'middle'],
      );
      assert.equal(doc.shelves[0].name, kept.name);
      assertError(await t.request({ method: 'PUT', url: resourceUrl(doctype, doctype), body: { shelves: [{}] } }), 417, 'MandatoryError');
    });

    test('deleting a Single DocType removes its values, so a new DocType of that name starts from its defaults', async () => {
      const doctype = await createSingle(t);
      await saveSingle(t, doctype, { max_items: 99 });
      const removed = await t.request({ method: 'DELETE', url: resourceUrl('DocType', doctype) });
      assert.equal(removed.statusCode, 202, removed.body);
      await createDocType(t, { name: doctype, issingle: 1, fields: [{ fieldname: 'max_items', label: 'Max Items', fieldtype: 'Int', default: '5' }] });
      assert.equal((await readSingle(t, doctype)).max_items, 5);
    });

    describe('permissions', () => {
      let doctype: string;
      let stranger: ActingUser;
      let reader: ActingUser;
      let manager: ActingUser;
      before(async () => {
        const role = `Single Reader ${dialect.name}`;
        await createRole(t, role);
        doctype = await createSingle(t, [{ role: 'System Manager' }, { role, read: 1, write: 0, create: 0, delete: 0 }]);
        stranger = await createUser(t, `single-stranger-${dialect.name}@example.com`);
        reader = await createUser(t, `single-reader-${dialect.name}@example.com`, { roles: [role] });
        manager = await createUser(t, `single-manager-${dialect.name}@example.com`, { roles: ['System Manager'] });
      });

      test('Guest and a user without a role on the Single get 403, whatever the name', async () => {
        for (const who of [undefined, stranger]) {
          assertError(await actAs(t, who, { method: 'GET', url: resourceUrl(doctype, doctype) }), 403, 'PermissionError');
          assertError(await actAs(t, who, { method: 'GET', url: resourceUrl(doctype, 'Something Else') }), 403, 'PermissionError');
          assertError(await actAs(t, who, { method: 'PUT', url: resourceUrl(doctype, doctype), body: { motto: 'x' } }), 403, 'PermissionError');
          assertError(
            await actAs(t, who, { method: 'GET', url: `/api/method/fw.client.get_single_value?doctype=${encodeURIComponent(doctype)}&field=motto` }),
            403,
            'PermissionError',
          );
        }
      });

      test('a read-only role may read but not write; a System Manager may do both', async () => {
        const read = await actAs(t, reader, { method: 'GET', url: resourceUrl(doctype, doctype) });
        assert.equal(read.statusCode, 200, read.body);
        assertError(await actAs(t, reader, { method: 'PUT', url: resourceUrl(doctype, doctype), body: { motto: 'x' } }), 403, 'PermissionError');
        const written = await actAs(t, manager, { method: 'PUT', url: resourceUrl(doctype, doctype), body: { motto: 'by manager' } });
        assert.equal(written.statusCode, 200, written.body);
        assert.equal(written.json().data.modified_by, manager.name);
      });
    });
  });
}
