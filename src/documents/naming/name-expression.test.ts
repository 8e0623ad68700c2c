import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import { expandFormat, expandSeries, type ExpressionInput } from './name-expression.js';

/** An input with an in-memory counter that records which prefixes were asked for. */
function inputFor(doc: Doc, opts: { at?: string; timeZone?: string; fields?: string[] } = {}) {
  const counters = new Map<string, number>();
  const asked: string[] = [];
  const input: ExpressionInput = {
    doc,
    hasField: (f) => (opts.fields ?? []).includes(f),
    timeZone: opts.timeZone ?? 'UTC',
    at: Date.parse(opts.at ?? '2024-03-07T10:11:12.345Z'),
    counter: async (prefix) => {
      asked.push(prefix);
      const next = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, next);
      return next;
    },
  };
  return { input, asked };
}

describe('expandSeries', () => {
  test('zero-pads the counter to the number of # signs and keys it by the prefix', async () => {
    const { input, asked } = inputFor({});
    assert.equal(await expandSeries('TASK-.#####', input), 'TASK-00001');
    assert.equal(await expandSeries('TASK-.#####', input), 'TASK-00002');
    assert.deepEqual(asked, ['TASK-', 'TASK-']);
  });

  test('resolves date parts before the counter and keys the counter by the resolved prefix', async () => {
    const { input, asked } = inputFor({});
    assert.equal(await expandSeries('BK-.YYYY.-.MM.-.DD.-.YY.-.####', input), 'BK-2024-03-07-24-0001');
    assert.deepEqual(asked, ['BK-2024-03-07-24-']);
  });

  test('reads date parts in the given time zone', async () => {
    const { input } = inputFor({}, { at: '2024-12-31T23:30:00Z', timeZone: 'Asia/Kolkata' });
    assert.equal(await expandSeries('X.YYYY.MM.DD.-.#', input), 'X20250101-1');
  });

  test('gives the day of the year as three digits for JJJ', async () => {
    const { input } = inputFor({}, { at: '2024-02-05T00:00:00Z' });
    assert.equal(await expandSeries('D.JJJ.-.##', input), 'D036-01');
    const leap = inputFor({}, { at: '2024-12-31T12:00:00Z' });
    assert.equal(await expandSeries('D.JJJ.-.##', leap.input), 'D366-01');
  });

  test('gives the ISO week for WW, kept consecutive at the ends of the year', async () => {
    const cases: [string, string][] = [
      ['2024-03-07T12:00:00Z', '10'],
      ['2021-01-01T12:00:00Z', '00'], // ISO week 53 of 2020
      ['2024-12-30T12:00:00Z', '53'], // ISO week 1 of 2025
      ['2026-01-05T12:00:00Z', '02'],
    ];
    for (const [at, week] of cases) {
      const { input } = inputFor({}, { at });
      assert.equal(await expandSeries('W.WW.-.#', input), `W${week}-1`, at);
    }
  });

  test('gives the full timestamp for timestamp', async () => {
    const { input } = inputFor({});
    assert.equal(await expandSeries('T-.timestamp.-.#', input), 'T-2024-03-07 10:11:12.345000-1');
  });

  test('puts field values in for {field} and for bare field names, and keeps other words literal', async () => {
    const { input, asked } = inputFor({ company: 'ACME', region: 'EU', qty: 7 }, { fields: ['company', 'region', 'qty', 'blank'] });
    assert.equal(await expandSeries('INV-.{company}.-.region.-.qty.-.blank.-.literal.-.###', input), 'INV-ACME-EU-7--literal-001');
    assert.deepEqual(asked, ['INV-ACME-EU-7--literal-']);
  });

  test('counts only the first # part', async () => {
    const { input, asked } = inputFor({});
    assert.equal(await expandSeries('A.##.-.###', input), 'A01-');
    assert.equal(asked.length, 1);
  });

  test('lets the counter grow past its digits', async () => {
    const { input } = inputFor({});
    for (let i = 0; i < 9; i++) await expandSeries('S.#', input);
    assert.equal(await expandSeries('S.#', input), 'S10');
  });

  test('refuses a pattern without a dot before the counter', async () => {
    const { input } = inputFor({});
    await assert.rejects(expandSeries('TASK-####', input), ValidationError);
  });

  test('refuses a pattern with characters outside letters, digits, - _ space / . # { }', async () => {
    const { input, asked } = inputFor({});
    for (const bad of ['TASK-.####;', "A'.##", 'A%.##', 'A<.##']) {
      await assert.rejects(expandSeries(bad, input), ValidationError, bad);
    }
    assert.equal(asked.length, 0);
  });

  test('accepts Unicode letters, slashes and spaces in a pattern', async () => {
    const { input } = inputFor({});
    assert.equal(await expandSeries('Größe / A_B .###', input), 'Größe / A_B 001');
  });
});

describe('expandFormat', () => {
  test('replaces braced fields, date parts and the counter, keeping the text between them', async () => {
    const { input, asked } = inputFor({ customer: 'C1' }, { fields: ['customer'] });
    assert.equal(await expandFormat('ABC-{customer}-{YYYY}-{MM}-{DD}-{####}', input), 'ABC-C1-2024-03-07-0001');
    assert.deepEqual(asked, ['ABC-C1-2024-03-07-']);
  });

  test('keys the counter by the text before it, so different field values count separately', async () => {
    const a = inputFor({ customer: 'C1' }, { fields: ['customer'] });
    assert.equal(await expandFormat('{customer}/{###}', a.input), 'C1/001');
    assert.equal(await expandFormat('{customer}/{###}', a.input), 'C1/002');
    a.input.doc.customer = 'C2';
    assert.equal(await expandFormat('{customer}/{###}', a.input), 'C2/001');
  });

  test('keeps the text after the counter out of its key', async () => {
    const { input, asked } = inputFor({});
    assert.equal(await expandFormat('LOG-{###}-{YY}', input), 'LOG-001-24');
    assert.deepEqual(asked, ['LOG-']);
  });

  test('leaves a template without braces as it is', async () => {
    const { input, asked } = inputFor({});
    assert.equal(await expandFormat('PLAIN', input), 'PLAIN');
    assert.equal(asked.length, 0);
  });
});
