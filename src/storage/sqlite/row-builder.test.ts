import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowBuilder } from './row-builder.js';

test('rowBuilder names values by their columns, in order', () => {
  assert.deepEqual(rowBuilder(['name', 'idx'])(['a', 1]), { name: 'a', idx: 1 });
});

test('rowBuilder quotes any column name and keeps __proto__ an own property', () => {
  const row = rowBuilder(['we"ird\\name', '__proto__', 'constructor'])([1, { polluted: true }, 3]);
  assert.equal(row['we"ird\\name'], 1);
  assert.deepEqual(Object.keys(row), ['we"ird\\name', '__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.equal((row as { polluted?: boolean }).polluted, undefined);
});

test('rowBuilder keeps the last value of a repeated column, as object rows do', () => {
  assert.deepEqual(rowBuilder(['name', 'name'])(['first', 'second']), { name: 'second' });
});
