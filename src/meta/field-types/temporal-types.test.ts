import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { today } from '../../datetime/clock.js';
import { FwError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { createFieldTypeRegistry } from './index.js';

const registry = createFieldTypeRegistry();
const ctx: FieldContext = { doctype: 'Test', timeZone: 'Asia/Kolkata', user: 'jane@example.com' };
const field = (fieldtype: string): DocField => ({ fieldname: 'when', label: 'When', fieldtype });
const write = (fieldtype: string, value: unknown): unknown => registry.get(fieldtype).coerce(value, field(fieldtype), ctx);
const read = (fieldtype: string, value: unknown): unknown => registry.get(fieldtype).fromDb?.(value, field(fieldtype));

function refusal(fieldtype: string, value: unknown): FwError {
  try {
    write(fieldtype, value);
  } catch (err) {
    if (err instanceof FwError) return err;
    throw err;
  }
  assert.fail(`${fieldtype} accepted ${JSON.stringify(value)}`);
}

const REFUSED_SHAPES: unknown[] = [true, 20240101, ['2024-01-01'], { date: '2024-01-01' }];

describe('Date', () => {
  const accepted: [unknown, string | null][] = [
    ['2024-02-29', '2024-02-29'],
    [' 2024-3-5 ', '2024-03-05'],
    ['2024-03-05 23:59:59', '2024-03-05'],
    ['2024-03-05T10:00:00.123456', '2024-03-05'],
    ['2024-03-05T20:00:00Z', '2024-03-06'],
    [new Date(Date.UTC(2024, 2, 5, 20, 0)), '2024-03-06'],
    ['', null],
    [null, null],
    [undefined, null],
  ];
  for (const [input, stored] of accepted) {
    test(`stores ${input instanceof Date ? 'a Date' : JSON.stringify(input)} as ${JSON.stringify(stored)}`, () => {
      assert.equal(write('Date', input), stored);
    });
  }

  for (const input of ['2031-02-30', '2023-02-29', '2024-13-01', '05-03-2024', 'today', ...REFUSED_SHAPES]) {
    test(`refuses ${JSON.stringify(input)} with 417`, () => {
      const err = refusal('Date', input);
      assert.equal(err.status, 417);
      assert.equal(err.excType, 'ValidationError');
    });
  }

  test('reads stored dates and driver values back as YYYY-MM-DD', () => {
    assert.equal(read('Date', '2024-03-05'), '2024-03-05');
    assert.equal(read('Date', '2024-03-05 00:00:00'), '2024-03-05');
    assert.equal(read('Date', new Date(2024, 2, 5)), '2024-03-05');
    assert.equal(read('Date', null), null);
  });

  test('resolves the default Today in the site zone and keeps other defaults', () => {
    const type = registry.get('Date');
    // Read the clock on both sides so a run across midnight cannot fail.
    const before = today('Asia/Kolkata');
    const resolved = ['Today', 'today'].map((text) => type.resolveDefault?.(text, field('Date'), ctx));
    const after = today('Asia/Kolkata');
    for (const value of resolved) assert.ok(value === before || value === after, String(value));
    assert.equal(type.resolveDefault?.('2024-01-01', field('Date'), ctx), '2024-01-01');
  });

  test('is a date column whose empty value is 0001-01-01', () => {
    assert.deepEqual(registry.get('Date').column(field('Date')), { kind: 'date' });
    assert.equal(registry.get('Date').emptyValue, '0001-01-01');
  });
});

describe('Datetime', () => {
  const accepted: [unknown, string | null][] = [
    ['2024-03-05', '2024-03-05 00:00:00.000000'],
    ['2024-03-05 10:20', '2024-03-05 10:20:00.000000'],
    ['2024-03-05 10:20:30', '2024-03-05 10:20:30.000000'],
    ['2024-03-05 10:20:30.5', '2024-03-05 10:20:30.500000'],
    ['2024-03-05T10:20:30.123456', '2024-03-05 10:20:30.123456'],
    ['2024-03-05T10:20:30Z', '2024-03-05 15:50:30.000000'],
    ['2024-03-05T10:20:30.250+01:00', '2024-03-05 14:50:30.250000'],
    [new Date(Date.UTC(2024, 2, 5, 10, 20, 30, 7)), '2024-03-05 15:50:30.007000'],
    ['', null],
    [null, null],
  ];
  for (const [input, stored] of accepted) {
    test(`stores ${input instanceof Date ? 'a Date' : JSON.stringify(input)} as ${JSON.stringify(stored)}`, () => {
      assert.equal(write('Datetime', input), stored);
    });
  }

  const invalid = ['2031-02-30 10:00:00', '2024-03-05 24:00:00', '2024-03-05 10:60', '2024-03-05 10:00:00.1234567', 'now'];
  for (const input of [...invalid, ...REFUSED_SHAPES]) {
    test(`refuses ${JSON.stringify(input)} with 417`, () => {
      assert.equal(refusal('Datetime', input).status, 417);
    });
  }

  const reads: [unknown, unknown][] = [
    ['2024-03-05 10:20:30.000000', '2024-03-05 10:20:30'],
    ['2024-03-05 10:20:30.000100', '2024-03-05 10:20:30.000100'],
    ['2024-03-05 10:20:30', '2024-03-05 10:20:30'],
    ['2024-03-05 10:20:30.12', '2024-03-05 10:20:30.120000'],
    ['2024-03-05T10:20:30', '2024-03-05 10:20:30'],
    [new Date(2024, 2, 5, 10, 20, 30, 5), '2024-03-05 10:20:30.005000'],
    [null, null],
  ];
  for (const [stored, out] of reads) {
    test(`reads ${stored instanceof Date ? 'a driver Date' : JSON.stringify(stored)} as ${JSON.stringify(out)}`, () => {
      assert.equal(read('Datetime', stored), out);
    });
  }

  test('resolves the default now to a fresh stored timestamp', () => {
    const type = registry.get('Datetime');
    const value = type.resolveDefault?.('Now', field('Datetime'), ctx) as string;
    assert.match(value, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    assert.equal(write('Datetime', value), value);
    assert.equal(type.resolveDefault?.('2024-01-01 00:00', field('Datetime'), ctx), '2024-01-01 00:00');
  });

  test('is a datetime column whose empty value sorts first', () => {
    assert.deepEqual(registry.get('Datetime').column(field('Datetime')), { kind: 'datetime' });
    assert.equal(registry.get('Datetime').emptyValue, '0001-01-01 00:00:00.000000');
  });
});

describe('Time', () => {
  const accepted: [unknown, string | null][] = [
    ['10:20', '10:20:00.000000'],
    ['9:05:07', '09:05:07.000000'],
    ['23:59:59.999999', '23:59:59.999999'],
    ['00:00:00.1', '00:00:00.100000'],
    ['', null],
    [null, null],
  ];
  for (const [input, stored] of accepted) {
    test(`stores ${JSON.stringify(input)} as ${JSON.stringify(stored)}`, () => {
      assert.equal(write('Time', input), stored);
    });
  }

  for (const input of ['24:00', '12:60', '12:00:60', '10', 'noon', ...REFUSED_SHAPES]) {
    test(`refuses ${JSON.stringify(input)} with 417`, () => {
      assert.equal(refusal('Time', input).status, 417);
    });
  }

  test('reads times back without a zero fraction', () => {
    assert.equal(read('Time', '09:05:07.000000'), '09:05:07');
    assert.equal(read('Time', '09:05:07.250000'), '09:05:07.250000');
    assert.equal(read('Time', '9:05:07'), '09:05:07');
    assert.equal(read('Time', null), null);
  });

  test('resolves the default now to the current time of day', () => {
    const value = registry.get('Time').resolveDefault?.('now', field('Time'), ctx) as string;
    assert.match(value, /^\d{2}:\d{2}:\d{2}\.\d{6}$/);
    assert.equal(write('Time', value), value);
  });

  test('is a time column', () => {
    assert.deepEqual(registry.get('Time').column(field('Time')), { kind: 'time' });
  });
});
