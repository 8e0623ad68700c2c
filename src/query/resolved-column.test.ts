import { test } from 'node:test';
import assert from 'node:assert/strict';
import { standardColumn } from './resolved-column.js';

test('creation and modified read back with six fraction digits, whatever form they were stored in', () => {
  const convert = standardColumn('t', 'modified').convert!;
  const cases: [unknown, unknown][] = [
    ['2026-11-26 10:00:00.123456', '2026-11-26 10:00:00.123456'],
    ['2026-11-26 10:00:00.1', '2026-11-26 10:00:00.100000'],
    ['2026-11-26 10:00:00', '2026-11-26 10:00:00.000000'],
    ['2026-1-2 3:04:05.5', '2026-01-02 03:04:05.500000'],
    ['not a timestamp', 'not a timestamp'],
    ['2023-02-30 10:00:00.000000', '2023-02-30 10:00:00.000000'],
    [null, null],
  ];
  for (const [stored, read] of cases) assert.equal(convert(stored), read, String(stored));
});
