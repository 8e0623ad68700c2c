import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_BOUND_VALUES, MAX_CONDITIONS, MAX_FILTER_DEPTH, MAX_IN_VALUES, MAX_PAGING } from '../../src/query/list-limits.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, serverMessages, v2Url, type Json } from '../helpers/document-api.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { query } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Absurd list arguments are a clear 417 DataError on both engines, found before any SQL runs:
 * long `in` lists, thousands of conditions, deep nesting, too many or too long fields, paging
 * values out of range. Just under each cap still works.
 */

const BOX = 'Limit Box';
const GET_LIST = '/api/method/frappe.client.get_list';
const GET_COUNT = '/api/method/frappe.client.get_count';

const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

/** `[[...[cond]...]]` nested `depth` arrays deep, built as JSON text (no recursion anywhere). */
function deepJson(depth: number): string {
  return '['.repeat(depth) + '["title","=","a"]' + ']'.repeat(depth);
}

function assertRefused(res: LightMyRequestResponse, pattern: RegExp): void {
  const body = assertError(res, 417, 'DataError');
  assert.match(serverMessages(body).join(' '), pattern);
}

/** A value nested past the request-wide limit: 400 NestingDepthExceeded, naming the limit. */
function assertTooDeep(res: LightMyRequestResponse): void {
  const body = assertError(res, 400, 'NestingDepthExceeded');
  assert.match(serverMessages(body).join(' '), /deeper than 64 levels/);
}

/** The v2 form of {@link assertRefused}: `{"errors": [{type, message}]}`. */
function assertV2Refused(res: LightMyRequestResponse, pattern: RegExp): void {
  assert.match(String(assertV2Error(res, 417, 'DataError').message), pattern);
}

for (const dialect of testDialects()) {
  describe(`list argument limits (${dialect.name})`, () => {
    let t: TestSite;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: BOX,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'n', label: 'N', fieldtype: 'Int' },
        ],
      });
      await insertDoc(t, BOX, { title: 'a', n: 1 });
    });
    after(() => t.close());

    const rpc = (args: Json) => t.request({ method: 'POST', url: GET_LIST, body: { doctype: BOX, ...args } });
    const get = (args: Json) => t.request({ method: 'GET', url: resourceUrl(BOX) + query(args) });
    const raw = (body: string) => t.request({ method: 'POST', url: GET_LIST, body, headers: { 'content-type': 'application/json' } });

    test(`an in list of ${MAX_IN_VALUES} values works; one more is refused, as a list or a string`, async () => {
      assert.equal((await rpc({ filters: [['name', 'in', names(MAX_IN_VALUES)]] })).statusCode, 200);
      assertRefused(await rpc({ filters: [['name', 'in', names(MAX_IN_VALUES + 1)]] }), /at most 1000 values/);
      assertRefused(await rpc({ filters: [['name', 'not in', names(40000)]] }), /at most 1000 values/);
      assertRefused(await rpc({ filters: [['name', 'in', names(70000).join(',')]] }), /at most 1000 values/);
      assertRefused(await rpc({ filters: [['title', 'not in', JSON.stringify(names(2000))]] }), /at most 1000 values/);
    });

    test('the values of all conditions together are bounded', async () => {
      const filters = Array.from({ length: 6 }, () => ['name', 'not in', names(MAX_IN_VALUES)]);
      assertRefused(await rpc({ filters }), new RegExp(`more than ${MAX_BOUND_VALUES}`));
      assertRefused(await rpc({ doctype: BOX, filters, method: 'x' }), /too many values/);
      const count = await t.request({ method: 'POST', url: GET_COUNT, body: { doctype: BOX, filters } });
      assertError(count, 417, 'DataError');
    });

    test(`${MAX_CONDITIONS} conditions work; thousands of filters or or_filters are refused`, async () => {
      const many = (n: number, op: string) => Array.from({ length: n }, (_, i) => ['title', op, `v${i}`]);
      assert.equal((await rpc({ filters: many(MAX_CONDITIONS, '!=') })).statusCode, 200);
      assertRefused(await rpc({ filters: many(5000, '!=') }), /at most 200 conditions/);
      assertRefused(await rpc({ or_filters: many(5000, '=') }), /at most 200 conditions/);
      assertRefused(await rpc({ filters: many(150, '!='), or_filters: many(150, '=') }), /at most 200 conditions/);
      const dict = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, 1]));
      assertRefused(await rpc({ filters: dict }), /at most 200 conditions/);
    });

    test('deep nesting is refused before anything recursive runs, as JSON text or a native body', async () => {
      let ok: unknown = ['title', '=', 'a'];
      for (let i = 0; i < MAX_FILTER_DEPTH - 1; i++) ok = [ok, 'or', ['title', '=', 'b']];
      assert.equal((await rpc({ filters: [ok] })).statusCode, 200);
      let tooDeep: unknown = ['title', '=', 'a'];
      for (let i = 0; i < MAX_FILTER_DEPTH + 2; i++) tooDeep = [tooDeep, 'or', ['title', '=', 'b']];
      assertRefused(await rpc({ filters: [tooDeep] }), /nested too deeply/);
      // Past 64 levels of JSON the edge refuses the value before any parser sees it (docs/api.md).
      assertTooDeep(await get({ filters: deepJson(100000) }));
      assertRefused(await raw(`{"doctype":"${BOX}","filters":${deepJson(40)}}`), /nested too deeply/);
      assertRefused(await raw(`{"doctype":"${BOX}","fields":${deepJson(40)}}`), /nested too deeply/);
      assertTooDeep(await raw(`{"doctype":"${BOX}","filters":${deepJson(100000)}}`));
      assertTooDeep(await raw(`{"doctype":"${BOX}","fields":${deepJson(100000)}}`));
      assertTooDeep(
        await t.request({
          method: 'POST',
          url: GET_COUNT,
          body: `{"doctype":"${BOX}","filters":${deepJson(100000)}}`,
          headers: { 'content-type': 'application/json' },
        }),
      );
    });

    test('too many fields, too many columns and absurdly long field strings are refused', async () => {
      assertRefused(await rpc({ fields: Array.from({ length: 3000 }, () => 'name') }), /at most 200 items/);
      assertRefused(await get({ fields: Array.from({ length: 3000 }, () => 'name').join(',') }), /at most 200 items/);
      assertRefused(await rpc({ fields: Array.from({ length: 200 }, () => '*') }), /more than 1000 columns/);
      assertRefused(await rpc({ fields: ['x'.repeat(100000)] }), /longer than 300 characters/);
      assertRefused(await rpc({ fields: 'x'.repeat(2 * 1024 * 1024) }), /too long/);
      assertRefused(await rpc({ order_by: Array.from({ length: 3000 }, () => 'name').join(',') }), /at most 50 fields/);
      assertRefused(await rpc({ group_by: Array.from({ length: 3000 }, () => 'name').join(',') }), /at most 50 fields/);
      assertRefused(await rpc({ order_by: `${'n'.repeat(5000)} desc` }), /longer than 300/);
    });

    test('paging values out of range are clear 417s, on v1, v2 and get_list', async () => {
      const cases: Array<[Json, RegExp]> = [
        [{ limit_page_length: -1 }, /non-negative integer/],
        [{ limit_page_length: '1e400' }, /non-negative integer/],
        [{ limit_page_length: 'NaN' }, /non-negative integer/],
        [{ limit_page_length: 'ten' }, /non-negative integer/],
        [{ limit_page_length: 2.5 }, /non-negative integer/],
        [{ limit_page_length: '99999999999999999999' }, /at most 2147483647/],
        [{ limit_start: MAX_PAGING + 1 }, /at most 2147483647/],
        [{ limit_start: 9007199254740991 }, /at most 2147483647/],
      ];
      for (const [args, pattern] of cases) {
        assertRefused(await rpc(args), pattern);
        assertRefused(await get(args), pattern);
      }
      assertRefused(await raw(`{"doctype":"${BOX}","limit_page_length":1e400}`), /non-negative integer/);
      assertV2Refused(await t.request({ method: 'GET', url: v2Url(BOX) + query({ limit: '1e400' }) }), /non-negative integer/);
      assertV2Refused(await t.request({ method: 'GET', url: v2Url(BOX) + query({ start: MAX_PAGING + 1 }) }), /at most/);
      // The largest allowed values are honoured.
      assert.deepEqual(dataOf(await get({ limit_page_length: MAX_PAGING, limit_start: MAX_PAGING })), []);
      const v2 = await t.request({ method: 'GET', url: v2Url(BOX) + query({ limit: MAX_PAGING }) });
      assert.equal(v2.statusCode, 200, v2.body);
    });

    test('filters of the wrong type are 417, not 500 (v1 and v2)', async () => {
      for (const filters of ['5', '"a"', 'true', '{"title": {"x": 1}}', '[{"title": [1, 2, 3]}]', '[null]', '{"n": ["=", [1, 2]]}', '{"n": ["in", [{}]]}']) {
        assertV2Error(await t.request({ method: 'GET', url: v2Url(BOX) + query({ filters }) }), 417, 'DataError');
        assertV2Error(await t.request({ method: 'GET', url: v2Url(BOX) + query({ or_filters: filters }) }), 417, 'DataError');
      }
      // Text that is not JSON, or a JSON scalar, is refused on v1 too: never ignored or guessed at.
      for (const filters of ['nope', '5', 'nobody', '"a"']) {
        assertRefused(await get({ filters }), /filters must be a list or a dict/);
        assertRefused(await get({ or_filters: filters }), /or_filters must be a list or a dict/);
        assert.equal((await rpc({ filters })).statusCode, 417);
        assertV2Error(await t.request({ method: 'GET', url: `/api/v2/doctype/${encodeURIComponent(BOX)}/count` + query({ filters }) }), 417, 'DataError');
      }
    });

    test('NUL and other characters a database cannot hold are 417 on both engines', async () => {
      for (const filters of [[['title', '=', 'a\u0000b']], { title: ['like', '%\u0000%'] }, { title: ['in', ['a', 'b\u0000']] }]) {
        assertRefused(await rpc({ filters }), /NUL/);
      }
    });

    test('the site keeps answering after every refusal', async () => {
      assert.deepEqual(dataOf(await get({ fields: ['title'] })), [{ title: 'a' }]);
    });
  });
}
