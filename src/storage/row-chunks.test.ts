import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { PostgresDialect } from './postgres/postgres-dialect.js';
import { rowChunks } from './row-chunks.js';
import { SqliteDialect } from './sqlite/sqlite-dialect.js';

type Row = { name: string; n: number; note: string | null };

for (const dialect of [new SqliteDialect(), new PostgresDialect()]) {
  describe(`rowChunks on ${dialect.name}`, () => {
    const chunks = rowChunks(['name', 'n', 'note'], (rows) => dialect.builder.insertInto('tabThing').values(rows).compile());
    const rows = (count: number): Row[] => Array.from({ length: count }, (_, i) => ({ name: `r${i}`, n: i, note: i % 2 ? null : `x${i}` }));

    test('splits any count into 256, 64, 16, 4 and 1-row statements binding every row in order', () => {
      for (const [count, sizes] of [
        [0, []],
        [1, [1]],
        [5, [4, 1]],
        [300, [256, 16, 16, 4, 4, 4]],
        [599, [256, 256, 64, 16, 4, 1, 1, 1]],
      ] as const) {
        const statements = chunks(rows(count));
        assert.deepEqual(
          statements.map((s) => s.parameters.length / 3),
          sizes,
          `${count} rows`,
        );
        assert.deepEqual(
          statements.flatMap((s) => s.parameters),
          rows(count).flatMap((r) => [r.name, r.n, r.note]),
        );
      }
    });

    test('gives each size one SQL text, the one the builder makes for that many rows', () => {
      const [a] = chunks(rows(4));
      const [b] = chunks(rows(8).slice(4));
      assert.equal(a!.sql, b!.sql);
      const direct = dialect.builder
        .insertInto('tabThing')
        .values(rows(4).map(({ name, n, note }) => ({ name, n, note })))
        .compile();
      assert.equal(a!.sql, direct.sql);
      assert.deepEqual(a!.parameters, direct.parameters);
    });
  });
}

test('rowChunks statements write every row on SQLite', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE tabThing (name TEXT PRIMARY KEY, n INTEGER, note TEXT)');
  const dialect = new SqliteDialect();
  const chunks = rowChunks(['name', 'n', 'note'], (rows) => dialect.builder.insertInto('tabThing').values(rows).compile());
  const written = Array.from({ length: 345 }, (_, i) => ({ name: `r${i}`, n: i, note: i % 3 ? null : 'three' }));
  for (const s of chunks(written)) db.prepare(s.sql).run(...(s.parameters as unknown[]));
  assert.deepEqual(db.prepare('SELECT name, n, note FROM tabThing ORDER BY n').all(), written);
});
