import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, serverMessages, uniqueDocTypeName, type Json } from '../helpers/document-api.js';

const TITLE = { fieldname: 'title', label: 'Title', fieldtype: 'Data' };

/** Sends a whole new `fields` table for a DocType, as API.md asks for definition changes. */
function putFields(t: TestSite, doctype: string, fields: Json[]) {
  return t.request({ method: 'PUT', url: resourceUrl('DocType', doctype), body: { fields } });
}

for (const dialect of testDialects()) {
  describe(`DocTypes as data (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('POST /api/resource/DocType with only name, fields and permissions creates a custom DocType in module Custom', async () => {
      const name = uniqueDocTypeName('Book');
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: { name, fields: [TITLE], permissions: [{ role: 'System Manager' }] },
      });
      const def = dataOf(res);
      assert.equal(def.name, name);
      assert.equal(def.doctype, 'DocType');
      assert.equal(def.custom, 1);
      assert.equal(def.module, 'Custom');
      assert.deepEqual(
        def.fields.map((f: Json) => [f.fieldname, f.fieldtype, f.doctype, f.parent, f.idx]),
        [['title', 'Data', 'DocField', name, 1]],
      );
      assert.equal(def.permissions[0].role, 'System Manager');
      assert.deepEqual(
        (await readDoc(t, 'DocType', name)).fields.map((f: Json) => f.fieldname),
        ['title'],
      );
    });

    test('a DocType created through the API is custom even when the body says otherwise, and keeps a given module', async () => {
      const def = await createDocType(t, { name: uniqueDocTypeName('Shelf'), custom: 0, module: 'Library', fields: [TITLE] });
      assert.equal(def.custom, 1);
      assert.equal(def.module, 'Library');
    });

    test('documents of a new DocType can be created and read at once, named by hash', async () => {
      const name = uniqueDocTypeName('Book');
      await createDocType(t, { name, fields: [TITLE, { fieldname: 'pages', fieldtype: 'Int' }] });
      const doc = await insertDoc(t, name, { title: 'Dune', pages: '412' });
      assert.match(doc.name, /^[0-9a-v]{10}$/);
      assert.equal(doc.doctype, name);
      assert.equal(doc.title, 'Dune');
      assert.equal(doc.pages, 412);
      const read = await readDoc(t, name, doc.name);
      assert.deepEqual(read, doc);
    });

    test('a PUT of the whole fields table that adds a field makes the field usable at once', async () => {
      const name = uniqueDocTypeName('Book');
      await createDocType(t, { name, fields: [TITLE] });
      const old = await insertDoc(t, name, { title: 'Old' });
      const changed = dataOf(await putFields(t, name, [TITLE, { fieldname: 'isbn', label: 'ISBN', fieldtype: 'Data' }]));
      assert.deepEqual(
        changed.fields.map((f: Json) => f.fieldname),
        ['title', 'isbn'],
      );
      const doc = await insertDoc(t, name, { title: 'New', isbn: '978-0441013593' });
      assert.equal(doc.isbn, '978-0441013593');
      assert.equal((await readDoc(t, name, doc.name)).isbn, '978-0441013593');
      const updated = dataOf(await t.request({ method: 'PUT', url: resourceUrl(name, old.name), body: { isbn: '123' } }));
      assert.equal(updated.isbn, '123');
      assert.equal(updated.title, 'Old');
    });

    test('a PUT that removes a field keeps its column and data, and re-adding the field shows the old value', async () => {
      const name = uniqueDocTypeName('Book');
      const note = { fieldname: 'note', label: 'Note', fieldtype: 'Data' };
      await createDocType(t, { name, fields: [TITLE, note] });
      const doc = await insertDoc(t, name, { title: 'Dune', note: 'kept' });

      dataOf(await putFields(t, name, [TITLE]));
      const without = await readDoc(t, name, doc.name);
      assert.equal('note' in without, false);
      assert.equal('note' in (await readDoc(t, name, doc.name, 'v2')), false);
      // Saving while the field is gone must not touch the hidden column either.
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(name, doc.name), body: { title: 'Dune (2nd ed.)' } }));
      const other = await t.request({ method: 'POST', url: resourceUrl(name), body: { title: 'x', note: 'ignored' } });
      assert.equal('note' in dataOf(other), false);

      dataOf(await putFields(t, name, [TITLE, note]));
      const back = await readDoc(t, name, doc.name);
      assert.equal(back.note, 'kept');
      assert.equal(back.title, 'Dune (2nd ed.)');
    });

    test("widening a Data field's length lets longer values in", async () => {
      const name = uniqueDocTypeName('Book');
      await createDocType(t, { name, fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data', length: 5 }] });
      assertError(await t.request({ method: 'POST', url: resourceUrl(name), body: { code: '1234567890' } }), 417, 'CharacterLengthExceededError');
      const short = await insertDoc(t, name, { code: '12345' });
      dataOf(await putFields(t, name, [{ fieldname: 'code', label: 'Code', fieldtype: 'Data', length: 20 }]));
      const long = await insertDoc(t, name, { code: '1234567890abcdefghij' });
      assert.equal((await readDoc(t, name, long.name)).code, '1234567890abcdefghij');
      assert.equal((await readDoc(t, name, short.name)).code, '12345');
    });

    test('deleting a DocType that holds documents is refused with 417 LinkExistsError and the DocType keeps working', async () => {
      const name = uniqueDocTypeName('Book');
      await createDocType(t, { name, fields: [TITLE] });
      const doc = await insertDoc(t, name, { title: 'Dune' });
      const body = assertError(await t.request({ method: 'DELETE', url: resourceUrl('DocType', name) }), 417, 'LinkExistsError');
      assert.match(serverMessages(body).join('\n'), new RegExp(`${name}.*1 document`));
      assert.equal((await readDoc(t, 'DocType', name)).name, name);
      assert.equal((await readDoc(t, name, doc.name)).title, 'Dune');
      assert.equal((await insertDoc(t, name, { title: 'Emma' })).title, 'Emma');
    });

    test('deleting an empty custom DocType answers 202, after which it is 404 and its name can be used again', async () => {
      const name = uniqueDocTypeName('Book');
      await createDocType(t, { name, fields: [TITLE] });
      const doc = await insertDoc(t, name, { title: 'Dune' });
      assert.equal((await t.request({ method: 'DELETE', url: resourceUrl(name, doc.name) })).statusCode, 202);

      const res = await t.request({ method: 'DELETE', url: resourceUrl('DocType', name) });
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(res.json(), { message: 'ok' });
      assertError(await t.request({ method: 'GET', url: resourceUrl('DocType', name) }), 404, 'DoesNotExistError');
      assertError(await t.request({ method: 'POST', url: resourceUrl(name), body: { title: 'x' } }), 404, 'DoesNotExistError');

      // The table went with the DocType: a new definition under the same name starts empty and fresh.
      await createDocType(t, { name, fields: [{ fieldname: 'pages', fieldtype: 'Int' }] });
      const fresh = await insertDoc(t, name, { pages: 3 });
      assert.equal(fresh.pages, 3);
      assert.equal('title' in fresh, false);
    });

    const badDefinitions: Array<{ case: string; name?: string; fields: Json[]; mentions: RegExp }> = [
      { case: 'an unknown fieldtype', fields: [{ fieldname: 'x', fieldtype: 'Hologram' }], mentions: /Hologram/ },
      { case: 'a fieldname with a space and capitals', fields: [{ fieldname: 'Bad Name', fieldtype: 'Data' }], mentions: /Bad Name/ },
      { case: 'the reserved fieldname "name"', fields: [{ fieldname: 'name', fieldtype: 'Data' }], mentions: /"name".*reserved/ },
      {
        case: 'the reserved fieldname "modified"',
        fields: [{ fieldname: 'modified', fieldtype: 'Data' }],
        mentions: /"modified".*reserved/,
      },
      {
        case: 'a duplicate fieldname',
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'title', fieldtype: 'Int' },
        ],
        mentions: /"title".*more than once/,
      },
      {
        case: 'a Table field pointing at a DocType that is not a child table',
        fields: [{ fieldname: 'rows', fieldtype: 'Table', options: 'ToDo' }],
        mentions: /rows.*child table/,
      },
      {
        case: 'a Link field pointing at an unknown DocType',
        fields: [{ fieldname: 'ref', fieldtype: 'Link', options: 'No Such DocType' }],
        mentions: /ref/,
      },
      { case: 'a Link field without options', fields: [{ fieldname: 'ref', fieldtype: 'Link' }], mentions: /ref/ },
      { case: 'a DocType name with a semicolon and a bang', name: 'Odd;Name!', fields: [TITLE], mentions: /Odd;Name!/ },
      { case: 'a DocType name with a slash', name: 'Odd/Name', fields: [TITLE], mentions: /Odd\/Name/ },
      { case: 'a DocType name starting with a digit', name: '1 Odd Name', fields: [TITLE], mentions: /1 Odd Name/ },
    ];
    for (const bad of badDefinitions) {
      test(`a definition with ${bad.case} is refused with 417 and nothing is created`, async () => {
        const name = bad.name ?? uniqueDocTypeName('Bad');
        const res = await t.request({ method: 'POST', url: '/api/resource/DocType', body: { name, fields: bad.fields } });
        assert.match(serverMessages(assertError(res, 417, 'ValidationError')).join('\n'), bad.mentions);
        assertError(await t.request({ method: 'GET', url: resourceUrl('DocType', name) }), 404, 'DoesNotExistError');
        assertError(await t.request({ method: 'POST', url: resourceUrl(name), body: {} }), 404, 'DoesNotExistError');
      });
    }

    test('a PUT with a bad fields table is refused with 417 and leaves the definition and its documents as they were', async () => {
      const name = uniqueDocTypeName('Book');
      const before = await createDocType(t, { name, fields: [TITLE] });
      const doc = await insertDoc(t, name, { title: 'Dune' });
      assertError(await putFields(t, name, [TITLE, { fieldname: 'x', fieldtype: 'Hologram' }]), 417, 'ValidationError');
      assertError(await putFields(t, name, [TITLE, { fieldname: 'title', fieldtype: 'Int' }]), 417, 'ValidationError');
      const after = await readDoc(t, 'DocType', name);
      assert.equal(after.modified, before.modified);
      assert.deepEqual(after.fields, before.fields);
      assert.deepEqual(await readDoc(t, name, doc.name), doc);
    });

    test('a Table field pointing at a child DocType and a Link to another DocType are accepted and work', async () => {
      const child = uniqueDocTypeName('Book Line');
      await createDocType(t, { name: child, istable: 1, fields: [{ fieldname: 'chapter', fieldtype: 'Data', reqd: 1 }] });
      const name = uniqueDocTypeName('Book');
      await createDocType(t, {
        name,
        fields: [TITLE, { fieldname: 'lines', fieldtype: 'Table', options: child }, { fieldname: 'todo', fieldtype: 'Link', options: 'ToDo' }],
      });
      const todo = await insertDoc(t, 'ToDo', { description: 'read it' });
      const doc = await insertDoc(t, name, { title: 'Dune', todo: todo.name, lines: [{ chapter: 'One' }, { chapter: 'Two' }] });
      assert.deepEqual(
        doc.lines.map((r: Json) => [r.chapter, r.idx, r.doctype]),
        [
          ['One', 1, child],
          ['Two', 2, child],
        ],
      );
      assert.equal(doc.todo, todo.name);
    });

    test('changing the built-in ToDo DocType through the API is refused and ToDo keeps its definition', async () => {
      const before = await readDoc(t, 'DocType', 'ToDo');
      assertError(await t.request({ method: 'PUT', url: resourceUrl('DocType', 'ToDo'), body: { fields: [TITLE] } }), 417, 'ValidationError');
      assertError(await t.request({ method: 'PUT', url: resourceUrl('DocType', 'ToDo'), body: { description: 'mine now' } }), 417, 'ValidationError');
      assert.deepEqual(await readDoc(t, 'DocType', 'ToDo'), before);
      assert.equal((await insertDoc(t, 'ToDo', { description: 'still works' })).status, 'Open');
    });

    test('deleting the built-in ToDo DocType through the API is refused and ToDo keeps working', async () => {
      const before = await readDoc(t, 'DocType', 'ToDo');
      const res = await t.request({ method: 'DELETE', url: resourceUrl('DocType', 'ToDo') });
      assertError(res, 417, 'ValidationError');
      assert.deepEqual(await readDoc(t, 'DocType', 'ToDo'), before);
      assert.equal((await insertDoc(t, 'ToDo', { description: 'still works' })).status, 'Open');
    });

    test('GET /api/resource/DocType/ToDo returns the definition with its fields rows inline', async () => {
      const def = await readDoc(t, 'DocType', 'ToDo');
      assert.equal(def.name, 'ToDo');
      assert.equal(def.doctype, 'DocType');
      assert.equal(def.custom, 0);
      assert.equal(def.module, 'Desk');
      assert.ok(Array.isArray(def.fields) && def.fields.length > 3, JSON.stringify(def.fields));
      def.fields.forEach((row: Json, i: number) => {
        assert.equal(row.doctype, 'DocField');
        assert.equal(row.parent, 'ToDo');
        assert.equal(row.parenttype, 'DocType');
        assert.equal(row.parentfield, 'fields');
        assert.equal(row.idx, i + 1);
        assert.equal(typeof row.name, 'string');
      });
      const status = def.fields.find((f: Json) => f.fieldname === 'status');
      assert.equal(status.fieldtype, 'Select');
      assert.deepEqual(status.options.split('\n'), ['Open', 'Closed', 'Cancelled']);
      const description = def.fields.find((f: Json) => f.fieldname === 'description');
      assert.equal(description.fieldtype, 'Text Editor');
      assert.equal(description.reqd, 1);
    });
  });
}
