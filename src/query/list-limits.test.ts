import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataError } from '../errors/index.js';
import { assertBoundedArgs, assertBoundedValue, MAX_ARG_DEPTH, MAX_ARG_NODES } from './list-limits.js';

/** A value nested `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = ['title', '=', 'a'];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('list argument bounds', () => {
  test('ordinary arguments pass', () => {
    assertBoundedArgs({ fields: ['name', { items: ['sku'] }], filters: [['a', 'in', ['x', 'y']]], limit: '20', as_dict: true });
    assertBoundedValue(nested(MAX_ARG_DEPTH - 2), 'filters');
  });

  test('any argument nested too deeply is refused without overflowing the stack, unknown ones included', () => {
    for (const depth of [MAX_ARG_DEPTH + 1, 200000]) {
      assert.throws(
        () => assertBoundedArgs({ whatever: nested(depth) }),
        (e: unknown) => e instanceof DataError && /whatever is nested too deeply/.test(e.message),
      );
    }
    const deepObject: Record<string, unknown> = {};
    let cursor = deepObject;
    for (let i = 0; i < 100000; i++) cursor = (cursor.k = {}) as Record<string, unknown>;
    assert.throws(() => assertBoundedArgs({ filters: deepObject }), DataError);
  });

  test('too many values or characters in all arguments together are refused', () => {
    const wide = Array.from({ length: MAX_ARG_NODES / 2 + 1 }, () => 1);
    assert.throws(() => assertBoundedArgs({ filters: wide, or_filters: wide }), /too many values/);
    assert.throws(() => assertBoundedArgs({ fields: 'x'.repeat(600 * 1024), order_by: 'y'.repeat(600 * 1024) }), /too long/);
  });
});
