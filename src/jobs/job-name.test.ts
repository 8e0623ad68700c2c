import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newJobName } from './job-name.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('job names', () => {
  test('are version 7 UUIDs whose first 48 bits are the time in milliseconds', () => {
    for (const now of [0, 1, Date.UTC(2026, 10, 26, 9, 0, 0, 123), 2 ** 48 - 1]) {
      const name = newJobName(now);
      assert.match(name, UUID_V7);
      assert.equal(Number.parseInt(name.replace(/-/g, '').slice(0, 12), 16), now);
    }
  });

  test('sort by time, are unique, and spread their variant digit over 8, 9, a and b', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => newJobName(1_700_000_000_000 + Math.floor(i / 100)));
    assert.equal(new Set(names).size, names.length);
    for (let i = 100; i < names.length; i += 100) assert.ok(names[i - 1]! < names[i]!, `${names[i - 1]} < ${names[i]}`);
    const variants = new Map<string, number>();
    for (const name of names) variants.set(name[19]!, (variants.get(name[19]!) ?? 0) + 1);
    assert.deepEqual([...variants.keys()].sort(), ['8', '9', 'a', 'b']);
    for (const count of variants.values()) assert.ok(count > 4000 && count < 6000, `variant counts ${[...variants]}`);
  });
});
