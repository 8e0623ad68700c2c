import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { jsonType } from './json-type.js';

const ctx: FieldContext = { doctype: 'Test', timeZone: 'UTC', user: 'jane@example.com' };
const field: DocField = { fieldname: 'meta', label: 'Meta', fieldtype: 'JSON' };

describe('JSON', () => {
  const accepted: [string, unknown, string | null][] = [
    ['an object', { a: 1, b: [true, null] }, '{"a":1,"b":[true,null]}'],
    ['an array', [1, 'x'], '[1,"x"]'],
    ['JSON text, re-serialised compactly', '{ "a" : 1 }', '{"a":1}'],
    ['a JSON string literal', '"hello"', '"hello"'],
    ['a number', 5, '5'],
    ['a boolean', false, 'false'],
    ['an empty string', '', null],
    ['null', null, null],
  ];
  for (const [what, input, stored] of accepted) {
    test(`stores ${what} as ${JSON.stringify(stored)}`, () => {
      assert.equal(jsonType.coerce(input, field, ctx), stored);
    });
  }

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const refused: [string, unknown][] = [
    ['text that is not JSON', 'not json'],
    ['truncated JSON', '{"a":'],
    ['a cyclic object', cyclic],
    ['a non-finite number', Number.NaN],
  ];
  for (const [what, input] of refused) {
    test(`refuses ${what} with a 417 naming the field`, () => {
      assert.throws(
        () => jsonType.coerce(input, field, ctx),
        (err: unknown) => err instanceof FwError && err.excType === 'ValidationError' && /^Meta: /.test(err.message),
      );
    });
  }

  test('reads stored text back as a value and passes driver objects through', () => {
    assert.deepEqual(jsonType.fromDb?.('{"a":[1,2]}', field), { a: [1, 2] });
    assert.deepEqual(jsonType.fromDb?.({ a: 1 }, field), { a: 1 });
    assert.equal(jsonType.fromDb?.('not json', field), 'not json');
    assert.equal(jsonType.fromDb?.(null, field), null);
  });

  test('is a json column', () => {
    assert.deepEqual(jsonType.column(field), { kind: 'json' });
  });
});
