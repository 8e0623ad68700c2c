import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeRow, shapeRows } from './shape-rows.js';

const columns = [
  { key: 'name', column: 'c0' },
  { key: '__proto__', column: 'c1' },
  { key: 'n', column: 'c2', convert: (v: unknown) => Number(v) * 2 },
  { key: 'name', column: 'c3' },
];

test('dict rows keep every key an own property, __proto__ too, and a repeated key its first place and last value', () => {
  const row = shapeRow({ c0: 'a', c1: { polluted: true }, c2: '21', c3: 'last' }, columns, true) as Record<string, unknown>;
  assert.deepEqual(Object.keys(row), ['name', '__proto__', 'n']);
  assert.equal(row.name, 'last');
  assert.equal(row.n, 42);
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, { polluted: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(row), '{"name":"last","__proto__":{"polluted":true},"n":42}');
});

test('list rows are the values in select order; missing and null values are null, never converted', () => {
  assert.deepEqual(shapeRows([{ c0: 'a', c2: null }], columns, false), [['a', null, null, null]]);
});
