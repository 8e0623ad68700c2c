import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDialect } from './postgres-dialect.js';

const dialect = new PostgresDialect();

describe('PostgreSQL dialect', () => {
  test('character columns use the C collation so they sort as SQLite does', () => {
    assert.equal(dialect.columnType({ kind: 'varchar', length: 140 }), 'varchar(140) collate "C"');
    assert.equal(dialect.columnType({ kind: 'text' }), 'text collate "C"');
    assert.equal(dialect.columnType({ kind: 'decimal' }), 'numeric(21,9)');
    assert.equal(dialect.columnType({ kind: 'datetime' }), 'timestamp(6)');
  });

  test('a varchar needs widening only when it is shorter than wanted or must become text', () => {
    const varchar10 = { name: 'x', type: 'varchar(10)', length: 10 };
    assert.equal(dialect.needsWidening(varchar10, { kind: 'varchar', length: 140 }), true);
    assert.equal(dialect.needsWidening(varchar10, { kind: 'varchar', length: 10 }), false);
    assert.equal(dialect.needsWidening(varchar10, { kind: 'varchar', length: 5 }), false);
    assert.equal(dialect.needsWidening(varchar10, { kind: 'text' }), true);
    assert.equal(dialect.needsWidening({ name: 'x', type: 'text' }, { kind: 'varchar', length: 140 }), false);
    assert.equal(dialect.needsWidening({ name: 'x', type: 'integer' }, { kind: 'int' }), false);
  });

  test('queries compile with numbered placeholders and double-quoted names', () => {
    const q = dialect.builder.selectFrom('tabToDo').select('name').where('status', '=', 'Open').compile();
    assert.equal(q.sql, 'select "name" from "tabToDo" where "status" = $1');
    assert.deepEqual(q.parameters, ['Open']);
  });

  test('a whole-number LIMIT and OFFSET are written as literals, so a prepared statement plans with them', () => {
    const q = dialect.builder.selectFrom('tabToDo').select('name').where('status', '=', 'Open').orderBy('modified', 'desc').limit(20).offset(40).compile();
    assert.equal(q.sql, 'select "name" from "tabToDo" where "status" = $1 order by "modified" desc limit 20 offset 40');
    assert.deepEqual(q.parameters, ['Open']);
  });
});
