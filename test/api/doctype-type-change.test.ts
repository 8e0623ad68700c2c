import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';

/** Sends a new `fields` table with `code` of type `fieldtype`. */
function putCodeType(t: TestSite, doctype: string, fieldtype: string) {
  return t.request({ method: 'PUT', url: resourceUrl('DocType', doctype), body: { fields: [{ fieldname: 'code', fieldtype }] } });
}

// A schema change never converts stored values, so a type change that would need it is refused.
for (const dialect of testDialects()) {
  describe(`changing a field's type (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('Data to Int is refused with 417 naming the field; the definition and the values stay', async () => {
      const name = uniqueDocTypeName('Coded');
      await createDocType(t, { name, fields: [{ fieldname: 'code', fieldtype: 'Data' }] });
      const doc = await insertDoc(t, name, { code: 'AB-12' });
      const res = assertError(await putCodeType(t, name, 'Int'), 417, 'ValidationError');
      assert.match(JSON.stringify(res), /code.*Data to Int/);
      assert.equal((await readDoc(t, 'DocType', name)).fields[0].fieldtype, 'Data');
      assert.equal((await readDoc(t, name, doc.name)).code, 'AB-12');
    });

    test('Int to Date and Date to Datetime are refused too', async () => {
      const name = uniqueDocTypeName('Counted');
      await createDocType(t, { name, fields: [{ fieldname: 'code', fieldtype: 'Int' }] });
      assertError(await putCodeType(t, name, 'Date'), 417, 'ValidationError');
      const dated = uniqueDocTypeName('Dated');
      await createDocType(t, { name: dated, fields: [{ fieldname: 'code', fieldtype: 'Date' }] });
      assertError(await putCodeType(t, dated, 'Datetime'), 417, 'ValidationError');
    });

    test('Data to Small Text, Text or Select keeps the values and works', async () => {
      const name = uniqueDocTypeName('Texty');
      await createDocType(t, { name, fields: [{ fieldname: 'code', fieldtype: 'Data' }] });
      const doc = await insertDoc(t, name, { code: 'short' });
      for (const fieldtype of ['Small Text', 'Text']) {
        const res = await putCodeType(t, name, fieldtype);
        assert.equal(res.statusCode, 200, res.body);
      }
      const long = 'x'.repeat(5000);
      const saved = dataOf(await t.request({ method: 'POST', url: resourceUrl(name), body: { code: long } }));
      assert.equal(saved.code, long);
      assert.equal((await readDoc(t, name, doc.name)).code, 'short');

      const select = uniqueDocTypeName('Choosy');
      await createDocType(t, { name: select, fields: [{ fieldname: 'code', fieldtype: 'Data' }] });
      const res = await t.request({
        method: 'PUT',
        url: resourceUrl('DocType', select),
        body: { fields: [{ fieldname: 'code', fieldtype: 'Select', options: 'a\nb' }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        ((await readDoc(t, 'DocType', select)).fields as Json[]).map((f) => f.fieldtype),
        ['Select'],
      );
    });

    test('Int to Check keeps the values (both are integers)', async () => {
      const name = uniqueDocTypeName('Flagged');
      await createDocType(t, { name, fields: [{ fieldname: 'code', fieldtype: 'Int' }] });
      const doc = await insertDoc(t, name, { code: 1 });
      const res = await putCodeType(t, name, 'Check');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await readDoc(t, name, doc.name)).code, 1);
    });
  });
}
