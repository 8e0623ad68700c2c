import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeInPlace, shapeRow, shapeRows, shapesInPlace } from './shape-rows.js';

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

test('rows are shaped in place only as dicts keyed by their own distinct columns, and then as shapeRow shapes them', () => {
  const own = [
    { key: 'name', column: 'name' },
    { key: 'n', column: 'n', convert: (v: unknown) => Number(v) * 2 },
    { key: 'gone', column: 'gone' },
  ];
  assert.equal(shapesInPlace(own, true), true);
  assert.equal(shapesInPlace(own, false), false);
  assert.equal(shapesInPlace([{ key: 'name', column: 'c0' }], true), false);
  assert.equal(shapesInPlace([{ key: '__proto__', column: '__proto__' }], true), false);
  assert.equal(shapesInPlace([...own, { key: 'name', column: 'name' }], true), false);
  const stored = () => [
    { name: 'a', n: '21', gone: undefined },
    { name: 'b', n: null, gone: 'x' },
  ];
  const rows = stored();
  const shaped = shapeInPlace(rows, own);
  assert.equal(shaped, rows);
  assert.equal(shaped[0], rows[0]);
  assert.deepEqual(shaped, shapeRows(stored(), own, true));
  assert.equal(JSON.stringify(shaped), JSON.stringify(shapeRows(stored(), own, true)));
});
