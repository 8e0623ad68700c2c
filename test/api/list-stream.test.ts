import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, resourceUrl, v2Url } from '../helpers/document-api.js';
import { actAs, createUser, query } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * A list of every row (`limit_page_length=0`, v2 `limit=0`) is streamed from a database cursor
 * into the response. Its body must be byte for byte the body of the same list answered as one
 * page, with the same field formatting, and errors found before the first row must still be the
 * ordinary JSON errors.
 */

const SLIP = 'Stream Slip';
/** Enough rows, with long enough text, for the body to span several chunks. */
const ROWS = 400;

for (const dialect of testDialects()) {
  describe(`unlimited lists are streamed (${dialect.name})`, () => {
    let t: TestSite;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: SLIP,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
          { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
          { fieldname: 'done', label: 'Done', fieldtype: 'Check' },
          { fieldname: 'notes', label: 'Notes', fieldtype: 'Small Text' },
        ],
        permissions: [{ role: 'System Manager' }],
      });
      const docs = Array.from({ length: ROWS }, (_, i) => ({
        doctype: SLIP,
        title: `slip ${i} "quoted" é`,
        amount: i * 1.25,
        due: i % 3 === 0 ? null : '2025-03-0' + ((i % 9) + 1),
        done: i % 2,
        notes: i % 5 === 0 ? null : `line one\nline two ${i} ${'long text '.repeat(30)}`,
      }));
      for (let i = 0; i < docs.length; i += 200) {
        const res = await t.request({ method: 'POST', url: '/api/method/frappe.client.insert_many', body: { docs: docs.slice(i, i + 200) } });
        assert.equal(res.statusCode, 200, res.body);
      }
    });
    after(() => t.close());

    const cases: Array<[string, (limit: number) => string]> = [
      [
        'v1 objects',
        (limit) =>
          resourceUrl(SLIP) +
          query({ fields: ['name', 'title', 'amount', 'due', 'done', 'notes', 'modified'], order_by: 'amount desc', limit_page_length: limit }),
      ],
      ['v1 arrays (as_dict=0)', (limit) => resourceUrl(SLIP) + query({ fields: ['name', 'amount', 'due'], as_dict: 0, limit_page_length: limit })],
      ['v1 filtered to nothing', (limit) => resourceUrl(SLIP) + query({ filters: [['title', '=', 'none such']], limit_page_length: limit })],
      ['v2', (limit) => v2Url(SLIP) + query({ fields: ['name', 'title', 'amount', 'done'], order_by: 'title asc', limit })],
    ];
    for (const [title, url] of cases) {
      test(`${title}: the streamed body equals the body of one page holding every row`, async () => {
        const streamed = await t.request({ method: 'GET', url: url(0) });
        const paged = await t.request({ method: 'GET', url: url(ROWS + 10) });
        assert.equal(streamed.statusCode, 200, streamed.body);
        assert.equal(streamed.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(streamed.headers['cache-control'], 'no-store');
        const body = streamed.json();
        if (url(0).startsWith('/api/v2/')) assert.equal(body.has_next_page, false);
        assert.equal(streamed.body, paged.body);
      });
    }

    test('the streamed rows are all there', async () => {
      const res = await t.request({ method: 'GET', url: resourceUrl(SLIP) + query({ fields: ['name'], limit_page_length: 0 }) });
      assert.equal(res.json().data.length, ROWS);
    });

    test('errors found before the first row are the ordinary JSON errors', async () => {
      assertError(await t.request({ method: 'GET', url: resourceUrl(SLIP) + query({ fields: ['no_such_field'], limit_page_length: 0 }) }), 417, 'DataError');
      assertError(await t.request({ method: 'GET', url: resourceUrl(SLIP) + query({ filters: '[not json', limit_page_length: 0 }) }), 417, 'DataError');
      const outsider = await createUser(t, 'stream-outsider@example.com');
      assertError(await actAs(t, outsider, { method: 'GET', url: resourceUrl(SLIP) + query({ limit_page_length: 0 }) }), 403, 'PermissionError');
    });

    test('the site keeps answering after a streamed list', async () => {
      await t.request({ method: 'GET', url: resourceUrl(SLIP) + query({ limit_page_length: 0 }) });
      const res = await t.request({ method: 'GET', url: resourceUrl(SLIP) + query({ limit_page_length: 1 }) });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data.length, 1);
    });
  });
}
