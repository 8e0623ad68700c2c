import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, dataOf, readDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { actAs, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Issue 28, item 1 (docs/security.md "Stored markup"): a System Manager stored raw markup in an
 * HTML Editor (or Code, Markdown Editor) field, which the admin UI shows as text, then changed
 * the field to Text Editor, which the UI renders as markup; the stored `<iframe srcdoc>` then ran
 * a script in the Administrator's browser. The type change now sanitises the stored values in
 * the same transaction, as a Text Editor value is sanitised on save.
 */

const PAYLOAD =
  '<p>Quarterly <b>notes</b></p><iframe srcdoc="<script src=/files/x.js></script>"></iframe>' +
  '<img src="/files/logo.png" onerror="fetch(\'/api/method/logout\')"><a href="javascript:alert(1)">go</a><script>alert(1)</script>';
const PLAIN = 'if (a < b && c > d) return 1; // no tag in it';

function assertDefused(value: unknown): void {
  const text = String(value);
  assert.match(text, /<p>Quarterly <b>notes<\/b><\/p>/, 'formatting survives');
  for (const bad of [/<iframe/i, /srcdoc/i, /<script/i, /onerror/i, /javascript:/i]) assert.doesNotMatch(text, bad);
}

for (const dialect of testDialects()) {
  describe(`a field becoming a Text Editor keeps no unsafe stored markup (${dialect.name})`, () => {
    let t: TestSite;
    let manager: ActingUser;
    const as = (method: 'GET' | 'POST' | 'PUT', url: string, body?: Json) => actAs(t, manager, { method, url, ...(body ? { body } : {}) });
    const define = async (def: Json) => dataOf(await as('POST', '/api/resource/DocType', { permissions: [{ role: 'System Manager' }], ...def }));
    const retype = (doctype: string, fields: Json[]) => as('PUT', resourceUrl('DocType', doctype), { fields });

    before(async () => {
      t = await startTestSite(dialect);
      manager = await createUser(t, `markup-manager-${Date.now()}@example.com`, { roles: ['System Manager'] });
    });
    after(() => t.close());

    test('HTML Editor, Code and Markdown Editor values are sanitised when the fields become Text Editors; plain text is kept', async () => {
      const name = uniqueDocTypeName('Planted');
      const kinds = ['HTML Editor', 'Code', 'Markdown Editor'];
      const fields = kinds.map((fieldtype, i) => ({ fieldname: `f${i}`, fieldtype }));
      await define({ name, fields: [...fields, { fieldname: 'title', fieldtype: 'Data' }] });
      const planted = dataOf(await as('POST', resourceUrl(name), { f0: PAYLOAD, f1: PAYLOAD, f2: PAYLOAD, title: 'x' }));
      const plain = dataOf(await as('POST', resourceUrl(name), { f0: PLAIN, f1: PLAIN, f2: PLAIN, title: 'y' }));
      assert.equal((await readDoc(t, name, planted.name)).f0, PAYLOAD, 'stored as typed while the UI shows it as text');

      const res = await retype(name, [...fields.map((f) => ({ ...f, fieldtype: 'Text Editor' })), { fieldname: 'title', fieldtype: 'Data' }]);
      assert.equal(res.statusCode, 200, res.body);
      const after = await readDoc(t, name, planted.name);
      for (const f of ['f0', 'f1', 'f2']) assertDefused(after[f]);
      const kept = await readDoc(t, name, plain.name);
      for (const f of ['f0', 'f1', 'f2']) assert.equal(kept[f], PLAIN);
      // Filtering the table for the payload finds nothing left.
      const left = dataOf(await as('GET', `${resourceUrl(name)}?filters=${encodeURIComponent(JSON.stringify([['f0', 'like', '%srcdoc%']]))}`));
      assert.deepEqual(left, []);
    });

    test('every row is sanitised, in child tables and Singles too', async () => {
      const child = uniqueDocTypeName('Planted Row');
      await define({ name: child, istable: 1, fields: [{ fieldname: 'body', fieldtype: 'HTML Editor' }] });
      const parent = uniqueDocTypeName('Planted Parent');
      await define({
        name: parent,
        fields: [
          { fieldname: 'rows', fieldtype: 'Table', options: child },
          { fieldname: 'body', fieldtype: 'Code' },
        ],
      });
      const names: string[] = [];
      for (let i = 0; i < 12; i++) {
        names.push(String(dataOf(await as('POST', resourceUrl(parent), { body: PAYLOAD, rows: [{ body: PAYLOAD }, { body: PLAIN }] })).name));
      }
      const single = uniqueDocTypeName('Planted Single');
      await define({ name: single, issingle: 1, fields: [{ fieldname: 'body', fieldtype: 'HTML Editor' }] });
      dataOf(await as('PUT', resourceUrl(single, single), { body: PAYLOAD }));

      assert.equal((await retype(child, [{ fieldname: 'body', fieldtype: 'Text Editor' }])).statusCode, 200);
      assert.equal(
        (
          await retype(parent, [
            { fieldname: 'rows', fieldtype: 'Table', options: child },
            { fieldname: 'body', fieldtype: 'Text Editor' },
          ])
        ).statusCode,
        200,
      );
      assert.equal((await retype(single, [{ fieldname: 'body', fieldtype: 'Text Editor' }])).statusCode, 200);
      for (const docname of names) {
        const doc = await readDoc(t, parent, docname);
        assertDefused(doc.body);
        assertDefused(doc.rows[0].body);
        assert.equal(doc.rows[1].body, PLAIN);
      }
      assertDefused((await readDoc(t, single, single)).body);
    });

    test('a table of more rows than one page of the rewrite holds no unsafe markup afterwards', async () => {
      const name = uniqueDocTypeName('Planted Many');
      await define({ name, fields: [{ fieldname: 'body', fieldtype: 'Code' }] });
      const b = t.site.db.dialect.builder;
      const rows = Array.from({ length: 1203 }, (_, i) => ({ name: `row-${String(i).padStart(5, '0')}`, body: i % 3 === 0 ? PLAIN : PAYLOAD }));
      await t.site.db.transaction(async (q) => {
        for (let i = 0; i < rows.length; i += 200)
          await q.run(
            b
              .insertInto(`tab${name}`)
              .values(rows.slice(i, i + 200))
              .compile(),
          );
      });
      assert.equal((await retype(name, [{ fieldname: 'body', fieldtype: 'Text Editor' }])).statusCode, 200);
      const stored = await t.site.db.read((q) => q.all<{ name: string; body: string }>(b.selectFrom(`tab${name}`).select(['name', 'body']).compile()));
      assert.equal(stored.length, rows.length);
      for (const row of stored) {
        if (Number(row.name.slice(4)) % 3 === 0) assert.equal(row.body, PLAIN);
        else assertDefused(row.body);
      }
    });

    test('a type change refused for another field changes no type and no value', async () => {
      const name = uniqueDocTypeName('Planted Refused');
      await define({
        name,
        fields: [
          { fieldname: 'body', fieldtype: 'HTML Editor' },
          { fieldname: 'code', fieldtype: 'Data' },
        ],
      });
      const doc = dataOf(await as('POST', resourceUrl(name), { body: PAYLOAD, code: 'AB-1' }));
      const refused = await retype(name, [
        { fieldname: 'body', fieldtype: 'Text Editor' },
        { fieldname: 'code', fieldtype: 'Int' },
      ]);
      assertError(refused, 417, 'ValidationError');
      assert.deepEqual(
        ((await readDoc(t, 'DocType', name)).fields as Json[]).map((f) => f.fieldtype),
        ['HTML Editor', 'Data'],
      );
      assert.equal((await readDoc(t, name, doc.name)).body, PAYLOAD);
    });
  });
}
