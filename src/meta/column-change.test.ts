import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnCanBecome } from './column-change.js';

test('a column keeps its kind or widens text; every other change is refused', () => {
  const cases: Array<[string, string, boolean]> = [
    ['varchar', 'varchar', true],
    ['varchar', 'text', true],
    ['varchar', 'json', true],
    ['text', 'json', true],
    ['json', 'text', true],
    ['text', 'varchar', false],
    ['varchar', 'int', false],
    ['int', 'varchar', false],
    ['int', 'decimal', false],
    ['date', 'datetime', false],
    ['decimal', 'decimal', true],
  ];
  for (const [from, to, ok] of cases) {
    assert.equal(columnCanBecome({ kind: from as never }, { kind: to as never }), ok, `${from} -> ${to}`);
  }
});
