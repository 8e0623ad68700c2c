import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { Meta } from '../../meta/meta.js';
import { PostgresDialect } from '../../storage/postgres/postgres-dialect.js';
import { SqliteDialect } from '../../storage/sqlite/sqlite-dialect.js';
import { docstatusStatements, FoundDocstatuses, NAMES_PER_STATEMENT } from './docstatus-lookup.js';

// Only the table name shapes the statement; the Meta object is the key answers are filed under.
const meta = (doctype: string) => ({ tableName: `tab${doctype}` }) as Meta;
const names = (prefix: string, n: number) => new Set(Array.from({ length: n }, (_, i) => `${prefix}${i}`));

describe('docstatus lookups', () => {
  test('one statement for a few names over several tables, every name bound', () => {
    for (const dialect of [new SqliteDialect(), new PostgresDialect()]) {
      const [only, ...rest] = docstatusStatements(
        dialect,
        new Map([
          [meta('User'), new Set(['a@x.com'])],
          [meta('Role'), new Set(["O'Brien", 'Admin'])],
        ]),
      );
      assert.equal(rest.length, 0);
      assert.deepEqual(only.statement.parameters, ['a@x.com', "O'Brien", 'Admin']);
      assert.match(only.statement.sql, /union all/);
      assert.doesNotMatch(only.statement.sql, /O'Brien|a@x\.com/);
    }
  });

  test(`splits at ${NAMES_PER_STATEMENT} names per statement, across and within tables, in order`, () => {
    const a = meta('A');
    const b = meta('B');
    const statements = docstatusStatements(
      new SqliteDialect(),
      new Map([
        [a, names('a', 700)],
        [b, names('b', 400)],
      ]),
    );
    assert.deepEqual(
      statements.map((s) => s.statement.parameters.length),
      [500, 500, 100],
    );
    assert.deepEqual(
      statements.map((s) => s.metas),
      [[a], [a, b], [b]],
    );
    assert.deepEqual(
      statements.flatMap((s) => s.statement.parameters),
      [...names('a', 700), ...names('b', 400)],
    );
  });

  test('answers by table and name; a name found in one table is not found in another', () => {
    const db = new Database(':memory:');
    for (const table of ['tabA', 'tabB']) db.exec(`create table "${table}" (name text primary key, docstatus integer)`);
    db.prepare('insert into "tabA" values (?, ?)').run('shared', 2);
    for (let i = 0; i < 600; i++) db.prepare('insert into "tabB" values (?, ?)').run(`b${i}`, i % 3);
    const a = meta('A');
    const b = meta('B');
    const found = new FoundDocstatuses();
    for (const { statement, metas } of docstatusStatements(
      new SqliteDialect(),
      new Map([
        [a, new Set(['shared', 'gone'])],
        [b, new Set([...names('b', 600), 'shared'])],
      ]),
    )) {
      found.add(metas, db.prepare(statement.sql).all(...(statement.parameters as unknown[])) as object[]);
    }
    assert.equal(found.of(a, 'shared'), 2);
    assert.equal(found.of(a, 'gone'), undefined);
    assert.equal(found.of(b, 'shared'), undefined);
    assert.equal(found.of(b, 'b599'), 599 % 3);
    assert.equal(found.of(b, 'b0'), 0);
  });
});
