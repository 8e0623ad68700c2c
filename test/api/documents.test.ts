import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { ARTICLE, createDocumentFixtures, KEYED, NAMED, REQUIRED } from '../helpers/document-fixtures.js';
import {
  assertAbsent,
  assertError,
  assertStoredAs,
  dataOf,
  insertDoc,
  readDoc,
  resourceUrl,
  serverMessages,
  storedCount,
  storedRow,
  TIMESTAMP,
  v2Url,
  type Json,
} from '../helpers/document-api.js';

const STANDARD_FIELDS = ['name', 'owner', 'creation', 'modified', 'modified_by', 'idx', 'docstatus', 'doctype'];

let codes = 0;
/** A `code` value no other Article uses. */
function freshCode(): string {
  codes += 1;
  return `C-${codes}`;
}

for (const dialect of testDialects()) {
  describe(`documents (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
      await createDocumentFixtures(t);
    });
    after(() => t.close());

    const post = (doctype: string, body: Json) => t.request({ method: 'POST', url: resourceUrl(doctype), body });
    const put = (doctype: string, name: string, body: Json) => t.request({ method: 'PUT', url: resourceUrl(doctype, name), body });

    describe('create and read', () => {
      test('create answers 200 with every standard field and timestamps with six fractional digits', async () => {
        const res = await t.request({ method: 'POST', url: resourceUrl(ARTICLE), body: { title: 'Dune' } });
        const doc = dataOf(res);
        for (const key of STANDARD_FIELDS) assert.ok(key in doc, `${key} missing from ${res.body}`);
        assert.equal(typeof doc.name, 'string');
        assert.equal(doc.owner, 'Administrator');
        assert.equal(doc.modified_by, 'Administrator');
        assert.equal(doc.idx, 0);
        assert.equal(doc.docstatus, 0);
        assert.equal(doc.doctype, ARTICLE);
        assert.match(doc.creation, TIMESTAMP);
        assert.match(doc.modified, TIMESTAMP);
        assert.equal(doc.modified, doc.creation);
        assert.equal(doc.title, 'Dune');
      });

      test('documents created one after another have increasing creation', async () => {
        const first = await insertDoc(t, ARTICLE, { title: 'one' });
        const second = await insertDoc(t, ARTICLE, { title: 'two' });
        assert.ok(second.creation > first.creation, `${second.creation} <= ${first.creation}`);
      });

      test('v1 bodies omit null fields and v2 bodies include them', async () => {
        const v1 = await insertDoc(t, ARTICLE, { title: 'Sparse' });
        for (const key of ['published', 'reviewer', 'code']) assert.equal(key in v1, false, `${key} in v1 body`);
        const v1Read = await readDoc(t, ARTICLE, v1.name);
        assert.equal('published' in v1Read, false);

        const v2Read = await readDoc(t, ARTICLE, v1.name, 'v2');
        assert.equal(v2Read.published, null);
        assert.equal(v2Read.reviewer, null);
        assert.equal(v2Read.title, 'Sparse');
        const v2Created = dataOf(await t.request({ method: 'POST', url: v2Url(ARTICLE), body: { title: 'Sparse 2' } }));
        assert.equal(v2Created.published, null);
        for (const key of STANDARD_FIELDS) assert.ok(key in v2Created, `${key} missing from v2 create`);
      });

      test('a document reads back exactly as create answered it, on /api/resource and /api/v1/resource', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Emma', pages: 474, published: '1815-12-23', reviewer: 'Administrator' });
        assert.deepEqual(await readDoc(t, ARTICLE, doc.name), doc);
        const v1 = await t.request({ method: 'GET', url: resourceUrl(ARTICLE, doc.name, '/api/v1/resource') });
        assert.deepEqual(dataOf(v1), doc);
      });

      test('reading a document that does not exist is 404 DoesNotExistError', async () => {
        const body = assertError(await t.request({ method: 'GET', url: resourceUrl(ARTICLE, 'nope123456') }), 404, 'DoesNotExistError');
        assert.match(serverMessages(body).join(), /nope123456/);
      });

      test('a name in the body is ignored for hash naming', async () => {
        const doc = await insertDoc(t, ARTICLE, { name: 'my-own-name', title: 'x' });
        assert.notEqual(doc.name, 'my-own-name');
        assert.match(doc.name, /^[0-9a-v]{10}$/);
        await assertAbsent(t, ARTICLE, 'my-own-name');
      });
    });

    describe('update', () => {
      test('a PUT with one field changes only that field and refreshes modified', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Dune', pages: 412, note: 'classic' });
        const updated = dataOf(await put(ARTICLE, doc.name, { pages: 500 }));
        assert.equal(updated.pages, 500);
        assert.equal(updated.title, 'Dune');
        assert.equal(updated.note, 'classic');
        assert.equal(updated.creation, doc.creation);
        assert.equal(updated.owner, 'Administrator');
        assert.match(updated.modified, TIMESTAMP);
        assert.ok(updated.modified > doc.modified, `${updated.modified} <= ${doc.modified}`);
        assert.deepEqual(await readDoc(t, ARTICLE, doc.name), updated);
      });

      test('modified strictly increases across rapid saves', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Rapid' });
        let previous = doc.modified as string;
        for (let i = 1; i <= 8; i++) {
          const saved = dataOf(await put(ARTICLE, doc.name, { pages: i }));
          assert.match(saved.modified, TIMESTAMP);
          assert.ok(saved.modified > previous, `save ${i}: ${saved.modified} <= ${previous}`);
          previous = saved.modified;
        }
        assert.equal((await readDoc(t, ARTICLE, doc.name)).modified, previous);
      });

      test('a PUT carrying the current modified succeeds', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Fresh' });
        const updated = dataOf(await put(ARTICLE, doc.name, { title: 'Fresher', modified: doc.modified }));
        assert.equal(updated.title, 'Fresher');
      });

      test('a PUT carrying a stale modified is 417 TimestampMismatchError and the document is unchanged', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Original' });
        const current = dataOf(await put(ARTICLE, doc.name, { title: 'Second' }));
        const stale = await put(ARTICLE, doc.name, { title: 'Lost update', modified: doc.modified });
        const body = assertError(stale, 417, 'TimestampMismatchError');
        assert.match(serverMessages(body).join(), /modified after you have opened it/);
        await assertStoredAs(t, ARTICLE, current);
      });

      test('a modified in ISO form with a T separator counts as stale', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Iso' });
        const iso = String(doc.modified).replace(' ', 'T');
        assertError(await put(ARTICLE, doc.name, { title: 'changed', modified: iso }), 417, 'TimestampMismatchError');
        await assertStoredAs(t, ARTICLE, doc);
      });

      test('PATCH on /api/v2/document updates the document and answers it with nulls', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Patched', pages: 1 });
        const res = await t.request({ method: 'PATCH', url: v2Url(ARTICLE, doc.name), body: { pages: 2 } });
        const updated = dataOf(res);
        assert.equal(updated.pages, 2);
        assert.equal(updated.title, 'Patched');
        assert.equal(updated.published, null);
        assert.ok(updated.modified > doc.modified);
        assert.equal((await readDoc(t, ARTICLE, doc.name)).pages, 2);
      });

      test('updating a document that does not exist is 404 DoesNotExistError', async () => {
        assertError(await put(ARTICLE, 'nope123456', { title: 'x' }), 404, 'DoesNotExistError');
        await assertAbsent(t, ARTICLE, 'nope123456');
      });
    });

    describe('delete', () => {
      test('DELETE answers 202 {"message":"ok"} on v1 and the document is then 404', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Doomed' });
        const res = await t.request({ method: 'DELETE', url: resourceUrl(ARTICLE, doc.name) });
        assert.equal(res.statusCode, 202, res.body);
        assert.deepEqual(res.json(), { message: 'ok' });
        await assertAbsent(t, ARTICLE, doc.name);
        assertError(await t.request({ method: 'DELETE', url: resourceUrl(ARTICLE, doc.name) }), 404, 'DoesNotExistError');
      });

      test('DELETE answers 202 {"data":"ok"} on v2 and the document is then 404', async () => {
        const doc = await insertDoc(t, ARTICLE, { title: 'Doomed too' });
        const res = await t.request({ method: 'DELETE', url: v2Url(ARTICLE, doc.name) });
        assert.equal(res.statusCode, 202, res.body);
        assert.deepEqual(res.json(), { data: 'ok' });
        await assertAbsent(t, ARTICLE, doc.name);
      });
    });

    describe('mandatory fields', () => {
      test('a create missing several required fields is 417 MandatoryError naming every one of them', async () => {
        const count = await storedCount(t, REQUIRED);
        const body = assertError(await post(REQUIRED, { note: 'only this' }), 417, 'MandatoryError');
        // The reference names the document before validating, so the bracket holds the new name.
        assert.match(body.exception, /^fw\.exceptions\.MandatoryError: \[Required Thing, [^\]]+\]: /);
        for (const field of ['title', 'body', 'due']) assert.match(body.exception, new RegExp(`\\b${field}\\b`));
        const messages = serverMessages(body);
        for (const label of ['Title', 'Body', 'Due Date']) {
          assert.ok(
            messages.some((m) => m.includes(`Value missing for ${REQUIRED}: ${label}`)),
            JSON.stringify(messages),
          );
        }
        assert.equal('note' in body, false);
        assert.equal(await storedCount(t, REQUIRED), count);
      });

      const missingCases: Array<{ case: string; body: Json; missing: string }> = [
        { case: 'a whitespace-only Data value', body: { title: ' \t  ', body: 'text', due: '2024-01-01' }, missing: 'title' },
        { case: 'a Text Editor value of only <p><br></p>', body: { title: 'T', body: '<p><br></p>', due: '2024-01-01' }, missing: 'body' },
        { case: 'an empty Date string', body: { title: 'T', body: 'text', due: '' }, missing: 'due' },
        { case: 'a null value', body: { title: null, body: 'text', due: '2024-01-01' }, missing: 'title' },
      ];
      for (const c of missingCases) {
        test(`${c.case} in a required field counts as missing`, async () => {
          const count = await storedCount(t, REQUIRED);
          const body = assertError(await t.request({ method: 'POST', url: resourceUrl(REQUIRED), body: c.body }), 417, 'MandatoryError');
          assert.match(body.exception, new RegExp(`: ${c.missing}$`));
          assert.equal(await storedCount(t, REQUIRED), count);
        });
      }

      test('clearing a required field with a PUT is 417 MandatoryError and the document is unchanged', async () => {
        const doc = await insertDoc(t, REQUIRED, { title: 'T', body: '<p>text</p>', due: '2024-01-01' });
        assertError(await put(REQUIRED, doc.name, { title: '   ' }), 417, 'MandatoryError');
        assertError(await put(REQUIRED, doc.name, { body: '<p><br></p>', note: 'changed' }), 417, 'MandatoryError');
        await assertStoredAs(t, REQUIRED, doc);
      });
    });

    describe('uniqueness and names', () => {
      test('a unique field clash is 417 UniqueValidationError and the first document is intact', async () => {
        const code = freshCode();
        const first = await insertDoc(t, ARTICLE, { title: 'First', code });
        const count = await storedCount(t, ARTICLE);
        const body = assertError(await post(ARTICLE, { title: 'Second', code }), 417, 'UniqueValidationError');
        assert.match(serverMessages(body).join(), /Code/);
        assert.equal(await storedCount(t, ARTICLE), count);
        await assertStoredAs(t, ARTICLE, first);

        const other = await insertDoc(t, ARTICLE, { title: 'Other', code: freshCode() });
        assertError(await put(ARTICLE, other.name, { code }), 417, 'UniqueValidationError');
        await assertStoredAs(t, ARTICLE, other);
        await assertStoredAs(t, ARTICLE, first);
      });

      test('a duplicate name (autoname field:code) is 409 DuplicateEntryError and the first document is intact', async () => {
        const first = await insertDoc(t, KEYED, { code: 'K-1', title: 'First' });
        assert.equal(first.name, 'K-1');
        const count = await storedCount(t, KEYED);
        const body = assertError(await post(KEYED, { code: 'K-1', title: 'Second' }), 409, 'DuplicateEntryError');
        assert.match(serverMessages(body).join(), /K-1/);
        assert.equal(await storedCount(t, KEYED), count);
        await assertStoredAs(t, KEYED, first);
      });

      const names = [
        ['a space', 'two words'],
        ['slashes', 'a/b/c'],
        ['unicode', 'ünïcødé 名前 ✓'],
        ['a percent sign', '100% sure'],
        ['an encoded-looking sequence', 'literal %20 and %2F'],
      ] as const;
      for (const [what, name] of names) {
        test(`a name with ${what} round-trips through a percent-encoded URL for GET, PUT and DELETE`, async () => {
          const created = await insertDoc(t, NAMED, { name, title: 'T', pages: 1 });
          assert.equal(created.name, name);
          const url = resourceUrl(NAMED, name);
          assert.deepEqual(dataOf(await t.request({ method: 'GET', url })), created);
          const updated = dataOf(await t.request({ method: 'PUT', url, body: { pages: 2 } }));
          assert.equal(updated.name, name);
          assert.equal(updated.pages, 2);
          const gone = await t.request({ method: 'DELETE', url });
          assert.equal(gone.statusCode, 202, gone.body);
          await assertAbsent(t, NAMED, name);
        });
      }

      test('a name with slashes is reached with the slashes raw in the path', async () => {
        const name = 'raw/slash/name';
        await insertDoc(t, NAMED, { name, title: 'T' });
        const url = `${resourceUrl(NAMED)}/raw/slash/name`;
        assert.equal(dataOf(await t.request({ method: 'GET', url })).name, name);
        assert.equal(dataOf(await t.request({ method: 'PUT', url, body: { title: 'U' } })).title, 'U');
        assert.equal((await t.request({ method: 'DELETE', url })).statusCode, 202);
        await assertAbsent(t, NAMED, name);
      });
    });

    describe('field values', () => {
      test('a Password field is never returned in clear, on create, read, update or v2', async () => {
        const secret = 'hunter2-Correct-Horse';
        const created = await t.request({ method: 'POST', url: resourceUrl(ARTICLE), body: { title: 'S', secret } });
        const doc = dataOf(created);
        assert.ok(!created.body.includes(secret), created.body);
        assert.notEqual(doc.secret, secret);
        for (const res of [
          await t.request({ method: 'GET', url: resourceUrl(ARTICLE, doc.name) }),
          await t.request({ method: 'GET', url: v2Url(ARTICLE, doc.name) }),
          await put(ARTICLE, doc.name, { title: 'S2' }),
          await t.request({ method: 'PATCH', url: v2Url(ARTICLE, doc.name), body: { title: 'S3' } }),
        ]) {
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(!res.body.includes(secret), res.body);
        }
        const row = await storedRow(t, ARTICLE, doc.name);
        assert.ok(row, 'stored row');
        assert.ok(!JSON.stringify(row).includes(secret), 'the table holds the secret in clear');
      });

      test('Text Editor values are sanitised so that no script survives', async () => {
        const hostile = '<p>Hello</p><script>alert(1)</script><img src="x.png" onerror="alert(2)"><a href="javascript:alert(3)">x</a>';
        const doc = await insertDoc(t, ARTICLE, { title: 'XSS', body: hostile });
        for (const stored of [doc.body, (await readDoc(t, ARTICLE, doc.name)).body]) {
          assert.match(stored, /<p>Hello<\/p>/);
          assert.doesNotMatch(stored, /<script|onerror|javascript:|alert\(1\)/i);
        }
        const updated = dataOf(await put(ARTICLE, doc.name, { body: '<div onclick="steal()">hi<script>evil()</script></div>' }));
        assert.doesNotMatch(updated.body, /<script|onclick|evil\(\)/i);
        assert.match(updated.body, /hi/);
      });

      const wrongTypes: Array<{ case: string; patch: Json; excType: string }> = [
        { case: '"abc" for an Int', patch: { pages: 'abc' }, excType: 'ValidationError' },
        { case: '"2031-02-30" for a Date', patch: { published: '2031-02-30' }, excType: 'ValidationError' },
        { case: 'a list for a Data field', patch: { title: ['a', 'b'] }, excType: 'ValidationError' },
        { case: 'an object for a Data field', patch: { title: { a: 1 } }, excType: 'ValidationError' },
        { case: 'a Link to a missing document', patch: { reviewer: 'nobody@example.com' }, excType: 'LinkValidationError' },
      ];
      for (const c of wrongTypes) {
        test(`${c.case} is refused with 417 ${c.excType} on create and update, and nothing is stored`, async () => {
          const count = await storedCount(t, ARTICLE);
          assertError(await t.request({ method: 'POST', url: resourceUrl(ARTICLE), body: { title: 'ok', ...c.patch } }), 417, c.excType);
          assert.equal(await storedCount(t, ARTICLE), count);
          const doc = await insertDoc(t, ARTICLE, { title: 'Before', pages: 3, published: '2024-01-01', reviewer: 'Administrator' });
          assertError(await put(ARTICLE, doc.name, { note: 'also changed', ...c.patch }), 417, c.excType);
          await assertStoredAs(t, ARTICLE, doc);
        });
      }

      test('a Link to a missing document names the field and the value', async () => {
        const body = assertError(
          await t.request({ method: 'POST', url: resourceUrl(ARTICLE), body: { reviewer: 'ghost@example.com' } }),
          417,
          'LinkValidationError',
        );
        assert.match(serverMessages(body).join(), /Reviewer.*ghost@example\.com/);
      });
    });
  });
}
