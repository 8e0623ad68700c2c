import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDialect } from './postgres/postgres-dialect.js';
import { SqliteDialect } from './sqlite/sqlite-dialect.js';
import { perOwner, ShapeCache, statementShape } from './statement-shape.js';

for (const dialect of [new SqliteDialect(), new PostgresDialect()]) {
  describe(`statementShape on ${dialect.name}`, () => {
    test('binds each call’s values into the SQL compiled once, keeping constants in place', () => {
      const shape = statementShape(2, (user: string, doctype: string) =>
        dialect.builder
          .selectFrom('tabDocShare')
          .select('share_name')
          .where('share_doctype', '=', doctype)
          .where((eb) => eb.or([eb('user', '=', user), eb('everyone', '=', 1)]))
          .compile(),
      );
      const direct = (user: string, doctype: string) =>
        dialect.builder
          .selectFrom('tabDocShare')
          .select('share_name')
          .where('share_doctype', '=', doctype)
          .where((eb) => eb.or([eb('user', '=', user), eb('everyone', '=', 1)]))
          .compile();
      for (const [user, doctype] of [
        ['jane@example.com', 'ToDo'],
        ['bob@example.com', 'Note'],
      ]) {
        const bound = shape(user, doctype);
        const expected = direct(user, doctype);
        assert.equal(bound.sql, expected.sql);
        assert.deepEqual(bound.parameters, expected.parameters);
      }
    });

    test('refuses a shape whose arguments do not all become bound values', () => {
      assert.throws(
        () => statementShape(2, (name: string, _unused: string) => dialect.builder.selectFrom('tabToDo').selectAll().where('name', '=', name).compile()),
        /did not become bound values/,
      );
    });
  });
}

describe('shape caches', () => {
  test('perOwner builds once per owner', () => {
    let builds = 0;
    const of = perOwner((owner: { id: number }) => ({ id: owner.id, build: ++builds }));
    const a = { id: 1 };
    assert.equal(of(a), of(a));
    assert.notEqual(of(a), of({ id: 1 }));
    assert.equal(builds, 2);
  });

  test('ShapeCache builds once per owner pair', () => {
    const cache = new ShapeCache<object, object, number>();
    const [x, y] = [{}, {}];
    let builds = 0;
    assert.equal(
      cache.get(x, y, () => ++builds),
      1,
    );
    assert.equal(
      cache.get(x, y, () => ++builds),
      1,
    );
    assert.equal(
      cache.get(y, x, () => ++builds),
      2,
    );
  });
});
