import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, assertStoredAs, createDocType, dataOf, insertDoc, readDoc, resourceUrl, storedCount, v2Url, type Json } from '../helpers/document-api.js';

/** One field of each value type, some with the options and limits the cases below rely on. */
const EVERY_FIELD = 'Every Field';
const FIELDS: Json[] = [
  { fieldname: 'email', label: 'Email', fieldtype: 'Data', options: 'Email' },
  { fieldname: 'phone', label: 'Phone', fieldtype: 'Data', options: 'Phone' },
  { fieldname: 'website', label: 'Website', fieldtype: 'Data', options: 'URL' },
  { fieldname: 'short', label: 'Short', fieldtype: 'Data', length: 5 },
  { fieldname: 'qty', label: 'Qty', fieldtype: 'Int', non_negative: 1 },
  { fieldname: 'ratio', label: 'Ratio', fieldtype: 'Float' },
  { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency' },
  { fieldname: 'share', label: 'Share', fieldtype: 'Percent' },
  { fieldname: 'active', label: 'Active', fieldtype: 'Check' },
  { fieldname: 'colour', label: 'Colour', fieldtype: 'Select', options: 'Red\nGreen\nBlue' },
  { fieldname: 'day', label: 'Day', fieldtype: 'Date' },
  { fieldname: 'moment', label: 'Moment', fieldtype: 'Datetime' },
  { fieldname: 'clock', label: 'Clock', fieldtype: 'Time' },
  { fieldname: 'span', label: 'Span', fieldtype: 'Duration' },
  { fieldname: 'payload', label: 'Payload', fieldtype: 'JSON' },
  { fieldname: 'tint', label: 'Tint', fieldtype: 'Color' },
  { fieldname: 'stars', label: 'Stars', fieldtype: 'Rating' },
  { fieldname: 'essay', label: 'Essay', fieldtype: 'Long Text' },
  { fieldname: 'snippet', label: 'Snippet', fieldtype: 'Code' },
  { fieldname: 'blurb', label: 'Blurb', fieldtype: 'Small Text' },
  { fieldname: 'attachment', label: 'Attachment', fieldtype: 'Attach' },
];

/** Fields with `default` values, static and dynamic. */
const DEFAULTS = 'Defaults Holder';
const DEFAULT_FIELDS: Json[] = [
  { fieldname: 'd_date', fieldtype: 'Date', default: 'Today' },
  { fieldname: 'd_datetime', fieldtype: 'Datetime', default: 'now' },
  { fieldname: 'd_user', fieldtype: 'Data', default: '__user' },
  { fieldname: 'd_static', fieldtype: 'Data', default: 'hello' },
  { fieldname: 'd_int', fieldtype: 'Int', default: '7' },
  { fieldname: 'd_check', fieldtype: 'Check', default: '1' },
  { fieldname: 'd_select', fieldtype: 'Select', options: 'A\nB', default: 'B' },
  { fieldname: 'd_select_first', fieldtype: 'Select', options: 'X\nY' },
  { fieldname: 'd_select_blank', fieldtype: 'Select', options: '\nX\nY' },
  { fieldname: 'd_plain', fieldtype: 'Data' },
];

/** An accepted input and the value the API answers for it, on create and on every later read. */
const accepted: Array<{ field: string; input: unknown; output: unknown }> = [
  { field: 'email', input: 'ada@example.com', output: 'ada@example.com' },
  { field: 'email', input: 'ada@example.com, bob@example.org', output: 'ada@example.com, bob@example.org' },
  { field: 'phone', input: '+44 20 7946 0958', output: '+44 20 7946 0958' },
  { field: 'website', input: 'https://example.com/a?b=c', output: 'https://example.com/a?b=c' },
  { field: 'short', input: '12345', output: '12345' },
  { field: 'short', input: 'ünïcø', output: 'ünïcø' },
  { field: 'qty', input: '12', output: 12 },
  { field: 'qty', input: 12, output: 12 },
  { field: 'qty', input: ' 7 ', output: 7 },
  { field: 'qty', input: 0, output: 0 },
  { field: 'ratio', input: '1.5', output: 1.5 },
  { field: 'ratio', input: -2.25, output: -2.25 },
  { field: 'amount', input: '10.25', output: 10.25 },
  { field: 'share', input: 50, output: 50 },
  { field: 'active', input: '1', output: 1 },
  { field: 'active', input: true, output: 1 },
  { field: 'active', input: 1, output: 1 },
  { field: 'active', input: false, output: 0 },
  { field: 'active', input: '0', output: 0 },
  { field: 'colour', input: 'Green', output: 'Green' },
  { field: 'day', input: '2024-02-29', output: '2024-02-29' },
  { field: 'moment', input: '2024-01-02T03:04:05', output: '2024-01-02 03:04:05' },
  { field: 'moment', input: '2024-01-02 03:04:05', output: '2024-01-02 03:04:05' },
  { field: 'moment', input: '2024-01-02 03:04:05.000000', output: '2024-01-02 03:04:05' },
  { field: 'moment', input: '2024-01-02 03:04:05.123456', output: '2024-01-02 03:04:05.123456' },
  { field: 'moment', input: '2024-01-02T03:04:05.5', output: '2024-01-02 03:04:05.500000' },
  { field: 'clock', input: '13:45:10', output: '13:45:10' },
  { field: 'clock', input: '08:00:00.250000', output: '08:00:00.250000' },
  { field: 'span', input: 3600, output: 3600 },
  { field: 'span', input: '90.5', output: 90.5 },
  { field: 'payload', input: { a: 1, b: [1, 'two', null], c: { d: true } }, output: { a: 1, b: [1, 'two', null], c: { d: true } } },
  { field: 'payload', input: [1, 2, 3], output: [1, 2, 3] },
  { field: 'payload', input: '{"x": 1}', output: { x: 1 } },
  { field: 'tint', input: '#ff8800', output: '#ff8800' },
  { field: 'stars', input: 0.6, output: 0.6 },
  { field: 'stars', input: 5, output: 1 },
  { field: 'essay', input: 'word '.repeat(2000).trim(), output: 'word '.repeat(2000).trim() },
  { field: 'snippet', input: '<script>if (a < b) run();</script>', output: '<script>if (a < b) run();</script>' },
  { field: 'blurb', input: 'Plain words & more', output: 'Plain words & more' },
  { field: 'attachment', input: '/files/report.pdf', output: '/files/report.pdf' },
  { field: 'attachment', input: '/private/files/a b.png', output: '/private/files/a b.png' },
  { field: 'attachment', input: 'https://cdn.example.com/x.png', output: 'https://cdn.example.com/x.png' },
  { field: 'blurb', input: 'tabs\tand\nlines', output: 'tabs\tand\nlines' },
];

/** A refused input and the class the 417 names. */
const refused: Array<{ field: string; input: unknown; excType: string }> = [
  { field: 'email', input: 'not-an-email', excType: 'InvalidEmailAddressError' },
  { field: 'email', input: 'ada@example.com, nope', excType: 'InvalidEmailAddressError' },
  { field: 'phone', input: 'call me maybe', excType: 'InvalidPhoneNumberError' },
  { field: 'website', input: 'not a url', excType: 'InvalidURLError' },
  { field: 'short', input: '123456', excType: 'CharacterLengthExceededError' },
  { field: 'qty', input: -1, excType: 'NonNegativeError' },
  { field: 'qty', input: 'abc', excType: 'ValidationError' },
  { field: 'qty', input: 1.5, excType: 'ValidationError' },
  { field: 'qty', input: 2 ** 31, excType: 'ValidationError' },
  { field: 'qty', input: [1], excType: 'ValidationError' },
  { field: 'ratio', input: '1,5', excType: 'ValidationError' },
  { field: 'amount', input: 'Infinity', excType: 'ValidationError' },
  { field: 'active', input: 'yes', excType: 'ValidationError' },
  { field: 'active', input: 2, excType: 'ValidationError' },
  { field: 'colour', input: 'Purple', excType: 'ValidationError' },
  { field: 'day', input: '2031-02-30', excType: 'ValidationError' },
  { field: 'day', input: 'tomorrow', excType: 'ValidationError' },
  { field: 'moment', input: '2024-13-01 00:00:00', excType: 'ValidationError' },
  { field: 'clock', input: '25:00:00', excType: 'ValidationError' },
  { field: 'span', input: -5, excType: 'NonNegativeError' },
  { field: 'payload', input: '{not json', excType: 'ValidationError' },
  { field: 'blurb', input: ['a', 'b'], excType: 'ValidationError' },
  { field: 'tint', input: { r: 255 }, excType: 'ValidationError' },
  { field: 'blurb', input: 'nul\u0000inside', excType: 'ValidationError' },
  { field: 'short', input: '\u0000', excType: 'ValidationError' },
  { field: 'attachment', input: 'javascript:alert(1)', excType: 'InvalidURLError' },
  { field: 'attachment', input: ' JaVa\tScRiPt:alert(1)', excType: 'InvalidURLError' },
  { field: 'attachment', input: 'data:text/html;base64,PHNjcmlwdD4=', excType: 'InvalidURLError' },
];

/** `qty (Int)`: a field and its type, for test names. */
function describeField(fieldname: string): string {
  return `${fieldname} (${FIELDS.find((f) => f.fieldname === fieldname)?.fieldtype})`;
}

/** A value as JSON, cut short for test names. */
function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

for (const dialect of testDialects()) {
  describe(`field values (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: EVERY_FIELD, fields: FIELDS });
      await createDocType(t, { name: DEFAULTS, fields: DEFAULT_FIELDS });
    });
    after(() => t.close());

    for (const c of accepted) {
      test(`${describeField(c.field)} takes ${show(c.input)} and answers ${show(c.output)}`, async () => {
        const doc = await insertDoc(t, EVERY_FIELD, { [c.field]: c.input });
        assert.deepEqual(doc[c.field], c.output);
        assert.deepEqual((await readDoc(t, EVERY_FIELD, doc.name))[c.field], c.output);
        assert.deepEqual((await readDoc(t, EVERY_FIELD, doc.name, 'v2'))[c.field], c.output);
        // The same value through an update answers the same.
        const blank = await insertDoc(t, EVERY_FIELD, {});
        const res = await t.request({ method: 'PUT', url: resourceUrl(EVERY_FIELD, blank.name), body: { [c.field]: c.input } });
        assert.deepEqual(dataOf(res)[c.field], c.output);
      });
    }

    for (const c of refused) {
      test(`${describeField(c.field)} refuses ${show(c.input)} with 417 ${c.excType} and stores nothing`, async () => {
        const count = await storedCount(t, EVERY_FIELD);
        assertError(await t.request({ method: 'POST', url: resourceUrl(EVERY_FIELD), body: { [c.field]: c.input } }), 417, c.excType);
        assert.equal(await storedCount(t, EVERY_FIELD), count);
        const v2 = await t.request({ method: 'POST', url: v2Url(EVERY_FIELD), body: { [c.field]: c.input } });
        assertV2Error(v2, 417, c.excType);

        const doc = await insertDoc(t, EVERY_FIELD, { blurb: 'before' });
        const put = await t.request({ method: 'PUT', url: resourceUrl(EVERY_FIELD, doc.name), body: { [c.field]: c.input } });
        assertError(put, 417, c.excType);
        await assertStoredAs(t, EVERY_FIELD, doc);
      });
    }

    test('an empty document answers 0 for numeric and Check fields, the first option for a Select, and null for the rest', async () => {
      const doc = await insertDoc(t, EVERY_FIELD, {});
      for (const f of ['qty', 'ratio', 'amount', 'share', 'active', 'span', 'stars']) assert.equal(doc[f], 0, f);
      assert.equal(doc.colour, 'Red');
      const v2 = await readDoc(t, EVERY_FIELD, doc.name, 'v2');
      for (const f of ['email', 'day', 'moment', 'clock', 'payload', 'essay', 'attachment']) assert.equal(v2[f], null, f);
    });

    test('static and dynamic defaults fill fields the client left out', async () => {
      const earlier = await insertDoc(t, EVERY_FIELD, {});
      const doc = await insertDoc(t, DEFAULTS, {});
      assert.equal(doc.d_static, 'hello');
      assert.equal(doc.d_int, 7);
      assert.equal(doc.d_check, 1);
      assert.equal(doc.d_select, 'B');
      assert.equal(doc.d_select_first, 'X');
      assert.equal(doc.d_user, 'Administrator');
      // Today and now are the site's date and time when the document was made.
      assert.ok([earlier.creation.slice(0, 10), doc.creation.slice(0, 10)].includes(doc.d_date), doc.d_date);
      assert.match(doc.d_datetime, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?$/);
      assert.ok(doc.d_datetime >= earlier.creation.slice(0, 19) && doc.d_datetime <= doc.creation, doc.d_datetime);
      assert.deepEqual(await readDoc(t, DEFAULTS, doc.name), doc);
    });

    test('a Select whose first option is blank has no implicit default, and fields without a default stay unset', async () => {
      const doc = await readDoc(t, DEFAULTS, (await insertDoc(t, DEFAULTS, {})).name, 'v2');
      assert.equal(doc.d_select_blank, null);
      assert.equal(doc.d_plain, null);
    });

    test('values the client sends win over defaults', async () => {
      const doc = await insertDoc(t, DEFAULTS, {
        d_date: '2020-05-06',
        d_datetime: '2020-05-06 07:08:09',
        d_user: 'someone else',
        d_static: 'mine',
        d_int: 0,
        d_check: 0,
        d_select: 'A',
        d_select_first: 'Y',
      });
      assert.deepEqual(
        [doc.d_date, doc.d_datetime, doc.d_user, doc.d_static, doc.d_int, doc.d_check, doc.d_select, doc.d_select_first],
        ['2020-05-06', '2020-05-06 07:08:09', 'someone else', 'mine', 0, 0, 'A', 'Y'],
      );
    });

    test('defaults apply on insert only: clearing a field with a PUT does not bring its default back', async () => {
      const doc = await insertDoc(t, DEFAULTS, {});
      const res = await t.request({ method: 'PUT', url: resourceUrl(DEFAULTS, doc.name), body: { d_static: '' } });
      assert.equal(dataOf(res).d_static, '');
    });
  });
}
