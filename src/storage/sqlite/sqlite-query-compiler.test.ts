import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { SqliteDialect } from './sqlite-dialect.js';

const { builder } = new SqliteDialect();

test('a bound LIMIT is written limit +?, with its value still a parameter', () => {
  const compiled = builder.selectFrom('t').select('a').orderBy('a').limit(2).offset(1).compile();
  assert.equal(compiled.sql, 'select "a" from "t" order by "a" limit +? offset ?');
  assert.deepEqual(compiled.parameters, [2, 1]);
});

test('a LIMIT that is no bound value is written as given', () => {
  assert.equal(builder.selectFrom('t').select('a').limit(sql<number>`3`).compile().sql, 'select "a" from "t" limit 3');
  assert.equal(builder.selectFrom('t').select('a').limit(sql.lit(3)).compile().sql, 'select "a" from "t" limit 3');
});

test('limit +? pages as limit ? does', () => {
  const db = new BetterSqlite3(':memory:');
  db.exec('create table t (a integer)');
  for (let i = 1; i <= 5; i++) db.prepare('insert into t values (?)').run(i);
  const compiled = builder.selectFrom('t').select('a').orderBy('a', 'desc').limit(2).offset(1).compile();
  const stmt = db.prepare(compiled.sql).raw(true);
  assert.deepEqual(stmt.all(...compiled.parameters), [[4], [3]]);
  assert.deepEqual(stmt.all(3, 0), [[5], [4], [3]]);
  assert.deepEqual(stmt.all(0, 0), []);
  assert.deepEqual(stmt.all(-1, 3), [[2], [1]]);
  db.close();
});
