import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRange, UNSATISFIABLE } from './byte-range.js';

describe('parseRange', () => {
  const cases: Array<[string, string | undefined, number, ReturnType<typeof parseRange>]> = [
    ['no header sends everything', undefined, 100, undefined],
    ['a closed range', 'bytes=0-9', 100, { start: 0, end: 9 }],
    ['a closed range past the end is clipped', 'bytes=90-200', 100, { start: 90, end: 99 }],
    ['an open range runs to the end', 'bytes=95-', 100, { start: 95, end: 99 }],
    ['a suffix range takes the last bytes', 'bytes=-10', 100, { start: 90, end: 99 }],
    ['a suffix longer than the object takes all of it', 'bytes=-500', 100, { start: 0, end: 99 }],
    ['a start at the end is unsatisfiable', 'bytes=100-', 100, UNSATISFIABLE],
    ['a start past the end is unsatisfiable', 'bytes=150-160', 100, UNSATISFIABLE],
    ['an empty suffix is unsatisfiable', 'bytes=-0', 100, UNSATISFIABLE],
    ['any range of an empty object is unsatisfiable', 'bytes=-5', 0, UNSATISFIABLE],
    ['a reversed range is ignored', 'bytes=9-0', 100, undefined],
    ['several ranges are ignored', 'bytes=0-1,5-6', 100, undefined],
    ['another unit is ignored', 'items=0-1', 100, undefined],
    ['garbage is ignored', 'bytes=abc', 100, undefined],
    ['a bare dash is ignored', 'bytes=-', 100, undefined],
  ];
  for (const [what, header, size, expected] of cases) {
    test(`${what} (${String(header)} of ${size})`, () => {
      assert.deepEqual(parseRange(header, size), expected);
    });
  }
});
