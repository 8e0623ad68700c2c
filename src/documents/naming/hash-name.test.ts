import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashName } from './hash-name.js';

describe('hashName', () => {
  test('makes 10 lowercase base32hex characters', () => {
    for (let i = 0; i < 200; i++) assert.match(hashName(), /^[0-9a-v]{10}$/);
  });

  test('starts names made at the same instant with the same 4 time characters', () => {
    const at = 1_700_000_000_123;
    const a = hashName(at);
    const b = hashName(at);
    assert.equal(a.slice(0, 4), b.slice(0, 4));
  });

  test('encodes the wrapped milliseconds in the time characters, most significant first', () => {
    // 32**4 + 33 wraps to 33 = "0011" in base 32.
    assert.equal(hashName(32 ** 4 + 33).slice(0, 4), '0011');
    assert.equal(hashName(32 ** 4 - 1).slice(0, 4), 'vvvv');
  });

  test('fills the last 6 characters at random', () => {
    const tails = new Set(Array.from({ length: 500 }, () => hashName(42).slice(4)));
    assert.ok(tails.size > 490, `only ${tails.size} distinct random parts in 500 names`);
  });
});
