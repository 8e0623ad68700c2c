import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { createFieldTypeRegistry } from './index.js';

const registry = createFieldTypeRegistry();
const ctx: FieldContext = { doctype: 'Test', timeZone: 'UTC', user: 'jane@example.com' };
const field = (fieldtype: string, extra: Partial<DocField> = {}): DocField => ({
  fieldname: 'qty',
  label: 'Qty',
  fieldtype,
  ...extra,
});

function write(f: DocField, value: unknown): unknown {
  const type = registry.get(f.fieldtype);
  const stored = type.coerce(value, f, ctx);
  if (stored !== null && stored !== undefined) type.validate?.(stored, f, ctx);
  return stored;
}

function refusal(f: DocField, value: unknown): FwError {
  try {
    write(f, value);
  } catch (err) {
    if (err instanceof FwError) return err;
    throw err;
  }
  assert.fail(`${f.fieldtype} accepted ${String(value)}`);
}

const NUMERIC = ['Int', 'Long Int', 'Float', 'Currency', 'Percent', 'Duration', 'Rating'];

describe('numeric types: shared rules', () => {
  for (const name of NUMERIC) {
    test(`${name} is numeric with 0 as its empty value`, () => {
      assert.equal(registry.get(name).numeric, true);
      assert.equal(registry.get(name).emptyValue, 0);
    });

    test(`${name} turns null, undefined, "" and blanks into 0`, () => {
      for (const v of [null, undefined, '', '  ']) assert.equal(write(field(name), v), 0);
    });

    test(`${name} refuses non-numeric values with a 417 naming the field`, () => {
      for (const v of ['abc', '12abc', '0x10', 'Infinity', 'NaN', '1,000', true, false, Number.NaN, Infinity]) {
        const err = refusal(field(name), v);
        assert.equal(err.excType, 'ValidationError', `for ${String(v)}`);
        assert.equal(err.status, 417);
        assert.match(err.message, /^Qty: Invalid value .* for /);
      }
      assert.equal(refusal(field(name), [1]).message, 'Value for Qty cannot be a list');
      assert.equal(refusal(field(name), { a: 1 }).excType, 'ValidationError');
    });

    test(`${name} returns driver strings and bigints as numbers`, () => {
      const type = registry.get(name);
      assert.equal(type.fromDb?.('1.000000000', field(name)), 1);
      assert.equal(type.fromDb?.(7n, field(name)), 7);
      assert.equal(type.fromDb?.(0.5, field(name)), 0.5);
      assert.equal(type.fromDb?.(null, field(name)), null);
    });
  }

  for (const name of ['Int', 'Long Int', 'Float', 'Currency', 'Percent']) {
    test(`${name} refuses a negative value on a non_negative field with NonNegativeError`, () => {
      assert.equal(refusal(field(name, { non_negative: 1 }), -1).excType, 'NonNegativeError');
      assert.equal(write(field(name, { non_negative: 1 }), 0), 0);
      assert.equal(write(field(name), -1), -1);
    });
  }
});

describe('Int and Long Int', () => {
  const accepted: [string, unknown, number][] = [
    ['Int', 12, 12],
    ['Int', '12', 12],
    ['Int', ' -7 ', -7],
    ['Int', 12.0, 12],
    ['Int', '12.0', 12],
    ['Int', '1e3', 1000],
    ['Int', -0, 0],
    ['Int', 2147483647, 2147483647],
    ['Int', -2147483648, -2147483648],
    ['Long Int', 9007199254740991, 9007199254740991],
    ['Long Int', '-9007199254740991', -9007199254740991],
  ];
  for (const [name, input, stored] of accepted) {
    test(`${name} stores ${JSON.stringify(input)} as ${stored}`, () => {
      const out = write(field(name), input);
      assert.equal(out, stored);
      assert.ok(!Object.is(out, -0));
    });
  }

  const refused: [string, unknown, Partial<DocField>][] = [
    ['Int', 12.5, {}],
    ['Int', '0.1', {}],
    ['Int', 2147483648, {}],
    ['Int', -2147483649, {}],
    ['Int', 2 ** 53, { length: 20 }],
    ['Long Int', 9007199254740992, {}],
    ['Long Int', 1.5, {}],
  ];
  for (const [name, input, extra] of refused) {
    test(`${name}${extra.length ? ` (length ${extra.length})` : ''} refuses ${input} with 417`, () => {
      assert.equal(refusal(field(name, extra), input).status, 417);
    });
  }

  test('Int widens to bigint, with the safe-integer range, when length is over 11', () => {
    assert.deepEqual(registry.get('Int').column(field('Int')), { kind: 'int' });
    assert.deepEqual(registry.get('Int').column(field('Int', { length: 11 })), { kind: 'int' });
    assert.deepEqual(registry.get('Int').column(field('Int', { length: 20 })), { kind: 'bigint' });
    assert.equal(write(field('Int', { length: 20 }), 2 ** 40), 2 ** 40);
    assert.deepEqual(registry.get('Long Int').column(field('Long Int')), { kind: 'bigint' });
  });
});

describe('decimal types', () => {
  for (const name of ['Float', 'Currency', 'Percent', 'Duration', 'Rating']) {
    test(`${name} is a decimal column`, () => {
      assert.deepEqual(registry.get(name).column(field(name)), { kind: 'decimal' });
    });
  }

  test('Float, Currency and Percent keep fractions and parse numeric strings', () => {
    for (const name of ['Float', 'Currency', 'Percent']) {
      assert.equal(write(field(name), ' 3.5 '), 3.5);
      assert.equal(write(field(name), '.25'), 0.25);
      assert.equal(write(field(name), -1.75), -1.75);
      assert.equal(write(field(name), '1.5e2'), 150);
    }
  });

  test('Duration takes seconds and refuses negative ones', () => {
    assert.equal(write(field('Duration'), '3600'), 3600);
    assert.equal(refusal(field('Duration'), -1).excType, 'NonNegativeError');
  });

  test('Rating is clamped into 0..1', () => {
    assert.equal(write(field('Rating'), 0.6), 0.6);
    assert.equal(write(field('Rating'), 5), 1);
    assert.equal(write(field('Rating'), '-2'), 0);
  });
});

describe('Check', () => {
  const accepted: [unknown, 0 | 1][] = [
    [true, 1],
    [false, 0],
    [1, 1],
    [0, 0],
    ['1', 1],
    ['0', 0],
    ['true', 1],
    ['False', 0],
    [null, 0],
    [undefined, 0],
    ['', 0],
  ];
  for (const [input, stored] of accepted) {
    test(`stores ${JSON.stringify(input)} as ${stored}`, () => {
      assert.equal(write(field('Check'), input), stored);
    });
  }

  for (const input of [2, -1, 0.5, 'yes', 'constructor', [1], { a: 1 }]) {
    test(`refuses ${JSON.stringify(input)} with 417`, () => {
      const err = refusal(field('Check'), input);
      assert.equal(err.status, 417);
      assert.equal(err.excType, 'ValidationError');
    });
  }

  test('is an int column, numeric, and never counts as missing', () => {
    const type = registry.get('Check');
    assert.deepEqual(type.column(field('Check')), { kind: 'int' });
    assert.equal(type.numeric, true);
    assert.equal(type.isEmpty?.(0), false);
    assert.equal(type.fromDb?.('1', field('Check')), 1);
    assert.equal(type.fromDb?.(0n, field('Check')), 0);
  });
});
