import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_JSON_DEPTH } from '../../src/json/nesting-depth.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, storedCount } from '../helpers/document-api.js';
import { multipartForm } from '../helpers/multipart-form.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Values nested thousands deep once overflowed the stack of whatever walked them (a 500 while
 * building the error, the answer or the stored text). The HTTP edge now refuses any request value
 * nested deeper than MAX_JSON_DEPTH with a 400 NestingDepthExceeded, on every path a value takes.
 */

const NOTE = 'Deep Note';
const DEEP = 5000;
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
const json = { 'content-type': 'application/json' };

/** Asserts the refusal names the limit and the parameter it met. */
function assertTooDeep(res: LightMyRequestResponse, parameter: string): void {
  const body = assertError(res, 400, 'NestingDepthExceeded');
  assert.match(body.exception, new RegExp(`${parameter} is nested deeper than ${MAX_JSON_DEPTH} levels`));
}

for (const dialect of testDialects()) {
  describe(`request values nested too deep (${dialect.name})`, () => {
    let t: TestSite;
    let note: Record<string, any>;
    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: NOTE,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'payload', label: 'Payload', fieldtype: 'JSON' },
        ],
      });
      note = await insertDoc(t, NOTE, { title: 'kept', payload: { shallow: true } });
    });
    after(() => t.close());

    test('a method argument: JSON body, query string, form field and multipart field', async () => {
      const url = '/api/method/frappe.client.get_list';
      assertTooDeep(await t.request({ method: 'POST', url, body: `{"doctype":"${NOTE}","fields":${nested(DEEP)}}`, headers: json }), 'fields');
      assertTooDeep(await t.request({ method: 'GET', url: `${url}?doctype=${encodeURIComponent(NOTE)}&fields=${encodeURIComponent(nested(DEEP))}` }), 'fields');
      const form = `doctype=${encodeURIComponent(NOTE)}&filters=${encodeURIComponent(nested(DEEP))}`;
      assertTooDeep(await t.request({ method: 'POST', url, body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'filters');
      const parts = multipartForm([
        { name: 'doctype', value: NOTE },
        { name: 'filters', value: nested(DEEP) },
      ]);
      assertTooDeep(await t.app.inject({ method: 'POST', url, payload: parts.payload, headers: { ...parts.headers, authorization: t.adminAuth } }), 'filters');
      // JSON text sent inside a JSON string, which the handler parses again.
      assertTooDeep(await t.request({ method: 'POST', url, body: { doctype: NOTE, fields: nested(DEEP) } }), 'fields');
    });

    test('an order_by, on v1 and v2', async () => {
      assertTooDeep(
        await t.request({ method: 'GET', url: `/api/resource/${encodeURIComponent(NOTE)}?order_by=${encodeURIComponent(nested(DEEP))}` }),
        'order_by',
      );
      const res = await t.request({ method: 'GET', url: `/api/v2/document/${encodeURIComponent(NOTE)}?order_by=${encodeURIComponent(nested(DEEP))}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(JSON.parse(res.body).errors[0].type, 'NestingDepthExceeded');
    });

    test('a JSON field, as a value or as JSON text: refused, nothing stored', async () => {
      const before = await storedCount(t, NOTE);
      const url = `/api/resource/${encodeURIComponent(NOTE)}`;
      assertTooDeep(await t.request({ method: 'POST', url, body: `{"title":"deep","payload":${nested(DEEP)}}`, headers: json }), 'payload');
      assertTooDeep(await t.request({ method: 'POST', url, body: { title: 'deep', payload: nested(DEEP) } }), 'payload');
      assertTooDeep(await t.request({ method: 'PUT', url: `${url}/${note.name}`, body: `{"payload":{"a":${nested(DEEP)}}}`, headers: json }), 'payload');
      assert.equal(await storedCount(t, NOTE), before);
      assert.deepEqual((await readDoc(t, NOTE, note.name)).payload, { shallow: true });
    });

    test('a bulk_update document: refused, nothing changed', async () => {
      const body = `{"docs":[{"doctype":"${NOTE}","docname":"${note.name}","title":"changed","payload":${nested(DEEP)}}]}`;
      assertTooDeep(await t.request({ method: 'POST', url: '/api/method/frappe.client.bulk_update', body, headers: json }), 'docs');
      const stored = await readDoc(t, NOTE, note.name);
      assert.equal(stored.title, 'kept');
      assert.deepEqual(stored.payload, { shallow: true });
    });

    test(`values up to ${MAX_JSON_DEPTH} levels are served as before`, async () => {
      // The body object is the first level, the payload the rest.
      const payload = JSON.parse(nested(MAX_JSON_DEPTH - 1)) as unknown;
      const made = dataOf(await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(NOTE)}`, body: { title: 'deep enough', payload } }));
      assert.deepEqual((await readDoc(t, NOTE, made.name)).payload, payload);
      const one = await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(NOTE)}`, body: { title: 'one too deep', payload: [payload] } });
      assertTooDeep(one, 'payload');
      // Brackets inside ordinary text are not nesting.
      const text = '['.repeat(100);
      const plain = dataOf(await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(NOTE)}`, body: { title: `x ${text}` } }));
      assert.equal(plain.title, `x ${text}`);
    });
  });
}
