import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { textNestingExceeds, valueNestingExceeds } from './nesting-depth.js';

describe('nesting depth', () => {
  test('JSON text: arrays and objects count, brackets inside strings do not', () => {
    assert.equal(textNestingExceeds('[[[]]]', 3), false);
    assert.equal(textNestingExceeds('[[[[]]]]', 3), true);
    assert.equal(textNestingExceeds('{"a":{"b":[1]}}', 3), false);
    assert.equal(textNestingExceeds('{"a":{"b":[[1]]}}', 3), true);
    assert.equal(textNestingExceeds('["x [[[[[[ y", "\\" [[[[[["]', 3), false);
    // Unparseable text is measured all the same.
    assert.equal(textNestingExceeds('[[[[', 3), true);
  });

  test('JSON text inside a JSON string is measured on its own', () => {
    assert.equal(textNestingExceeds(JSON.stringify({ filters: '[[[]]]' }), 3), false);
    assert.equal(textNestingExceeds(JSON.stringify({ filters: '[[[[]]]]' }), 3), true);
    assert.equal(textNestingExceeds(JSON.stringify({ filters: '  {"a":[[[1]]]}' }), 3), true);
  });

  test('values: levels of the value, and JSON text in its strings', () => {
    assert.equal(valueNestingExceeds([[[]]], 3), false);
    assert.equal(valueNestingExceeds([[[[]]]], 3), true);
    assert.equal(valueNestingExceeds({ a: '[[[[]]]]' }, 3), true);
    assert.equal(valueNestingExceeds({ a: 'plain [[[[ text' }, 3), false);
    // Objects of other classes are not entered.
    assert.equal(valueNestingExceeds({ a: new Map([[1, [[[[]]]]]]) }, 3), false);
  });

  test('deep values are measured without recursion', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(valueNestingExceeds(deep, 64), true);
    assert.equal(textNestingExceeds('['.repeat(1_000_000), 64), true);
  });
});
