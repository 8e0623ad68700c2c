import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { FwError } from '../../src/errors/index.js';
import type { Database, Queryable } from '../../src/storage/database.js';
import type { ColumnKind } from '../../src/storage/dialect.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

const KINDS = ['varchar', 'text', 'int', 'bigint', 'decimal', 'date', 'datetime', 'time', 'json'] as const;

function col(db: Database, kind: ColumnKind, length?: number) {
  return sql.raw(db.dialect.columnType(length === undefined ? { kind } : { kind, length }));
}

/** tabSample: `name` primary key, one column per kind (`c_<kind>`), a unique `email`, a required `status`. */
async function createSample(db: Database): Promise<void> {
  await db.transaction(async (q) => {
    let create = db.dialect.builder.schema
      .createTable('tabSample')
      .addColumn('name', col(db, 'varchar', 140), (c) => c.primaryKey())
      .addColumn('email', col(db, 'varchar', 140))
      .addColumn('status', col(db, 'varchar', 20), (c) => c.notNull().defaultTo('Open'));
    for (const kind of KINDS) create = create.addColumn(`c_${kind}`, col(db, kind, kind === 'varchar' ? 140 : undefined));
    await q.run(create.compile());
    await q.run(db.dialect.builder.schema.createIndex('tabSample_email_unique').on('tabSample').column('email').unique().compile());
  });
}

async function count(db: Database, table: string): Promise<number> {
  const b = db.dialect.builder;
  const [row] = await db.read((q) =>
    q.all<{ n: number }>(
      b
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .compile(),
    ),
  );
  return row.n;
}

function insert(db: Database, q: Queryable, row: Record<string, unknown>) {
  return q.run(db.dialect.builder.insertInto('tabSample').values(row).compile());
}

function assertFwError(err: unknown, excType: string, status: number): FwError {
  assert.ok(err instanceof FwError, `expected ${excType}, got ${String(err)}`);
  assert.equal(err.excType, excType);
  assert.equal(err.status, status);
  return err;
}

for (const d of testDialects()) {
  describe(`storage conformance: ${d.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    before(async () => {
      ({ db, drop } = await openTestDatabase(d));
      await createSample(db);
    });
    after(() => drop());

    const select = (names: string[], columns: string[]) =>
      db.read((q) => q.all(db.dialect.builder.selectFrom('tabSample').select(columns).where('name', 'in', names).orderBy('name').compile()));

    test('every column kind reads back exactly what was written', async () => {
      const rows = [
        {
          name: 'kinds-1',
          c_varchar: 'Grüße, 日本語 and 🎉',
          c_text: 'line one\nline two — ünïcödé ✓'.repeat(50),
          c_int: -42,
          c_bigint: 9007199254740991,
          c_decimal: 12.5,
          c_date: '2031-02-28',
          c_datetime: '2031-02-28 23:59:59.000000',
          c_time: '09:05:00.000000',
          c_json: '{"b":1,"a":[1,2,{"c":null}]}',
        },
        {
          name: 'kinds-2',
          c_varchar: '',
          c_text: '',
          c_int: 0,
          c_bigint: -1,
          c_decimal: -0.000000001,
          c_date: '0001-01-01',
          c_datetime: '2024-01-01 00:00:00.100000',
          c_time: '23:59:59.100000',
          c_json: '[]',
        },
        { name: 'kinds-3', c_datetime: '1999-12-31 12:34:56.123456', c_time: '00:00:00.000001', c_decimal: 123456789012.123 },
        { name: 'kinds-4' },
      ];
      await db.transaction(async (q) => {
        for (const row of rows) await insert(db, q, row);
      });
      const columns = ['name', ...KINDS.map((k) => `c_${k}`)];
      const expected = rows.map((r) => Object.fromEntries(columns.map((c) => [c, (r as Record<string, unknown>)[c] ?? null])));
      assert.deepEqual(
        await select(
          rows.map((r) => r.name),
          columns,
        ),
        expected,
      );
    });

    test('counts and numeric columns come back as JS numbers', async () => {
      await db.transaction((q) => insert(db, q, { name: 'numbers', c_int: 7, c_bigint: 8, c_decimal: 0.25 }));
      const [row] = await select(['numbers'], ['c_int', 'c_bigint', 'c_decimal']);
      assert.deepEqual(row, { c_int: 7, c_bigint: 8, c_decimal: 0.25 });
      assert.equal(typeof (await count(db, 'tabSample')), 'number');
    });

    test('booleans bind as 1 and 0', async () => {
      await db.transaction(async (q) => {
        await insert(db, q, { name: 'flag-on', c_int: true });
        await insert(db, q, { name: 'flag-off', c_int: false });
      });
      assert.deepEqual(await select(['flag-off', 'flag-on'], ['c_int']), [{ c_int: 0 }, { c_int: 1 }]);
    });

    test('a primary-key clash is a DuplicateEntryError', async () => {
      await db.transaction((q) => insert(db, q, { name: 'dup' }));
      const err = await db
        .transaction((q) => insert(db, q, { name: 'dup' }))
        .then(
          () => assert.fail('the second insert should fail'),
          (e: unknown) => e,
        );
      assertFwError(err, 'DuplicateEntryError', 409);
    });

    test('a unique-index clash is a UniqueValidationError naming the column', async () => {
      await db.transaction((q) => insert(db, q, { name: 'u1', email: 'a@example.com' }));
      const err = await db
        .transaction((q) => insert(db, q, { name: 'u2', email: 'a@example.com' }))
        .then(
          () => assert.fail('the second insert should fail'),
          (e: unknown) => e,
        );
      const fw = assertFwError(err, 'UniqueValidationError', 417);
      assert.equal(fw.details.column, 'email');
      assert.equal(fw.details.table, 'tabSample');
    });

    test('a NULL in a NOT NULL column is a MandatoryError naming the column', async () => {
      const err = await db
        .transaction((q) => insert(db, q, { name: 'no-status', status: null }))
        .then(
          () => assert.fail('the insert should fail'),
          (e: unknown) => e,
        );
      assert.equal(assertFwError(err, 'MandatoryError', 417).details.column, 'status');
    });

    test('a transaction that throws leaves nothing behind', async () => {
      const boom = new Error('boom');
      await assert.rejects(
        db.transaction(async (q) => {
          await insert(db, q, { name: 'ghost-1' });
          await insert(db, q, { name: 'ghost-2' });
          throw boom;
        }),
        (err) => err === boom,
      );
      assert.deepEqual(await select(['ghost-1', 'ghost-2'], ['name']), []);
      // The connection is usable afterwards.
      await db.transaction((q) => insert(db, q, { name: 'after-rollback' }));
      assert.equal((await select(['after-rollback'], ['name'])).length, 1);
    });

    test('a committed transaction returns the value of its work', async () => {
      const result = await db.transaction(async (q) => {
        await insert(db, q, { name: 'committed' });
        return 'done';
      });
      assert.equal(result, 'done');
      assert.equal((await select(['committed'], ['name'])).length, 1);
    });

    test('"like" through the dialect operator ignores case', async () => {
      await db.transaction(async (q) => {
        await insert(db, q, { name: 'like-1', c_varchar: 'abcdef' });
        await insert(db, q, { name: 'like-2', c_varchar: 'xyz' });
      });
      const rows = await db.read((q) =>
        q.all(
          db.dialect.builder
            .selectFrom('tabSample')
            .select('name')
            .where('name', 'like', 'like-%')
            .where('c_varchar', db.dialect.likeOperator, 'ABC%')
            .compile(),
        ),
      );
      assert.deepEqual(rows, [{ name: 'like-1' }]);
    });

    test('ascending order with nulls first is binary order on every dialect', async () => {
      const values = ['b', 'B', null, 'a', 'A', 'Z', '_x', '1', 'é', 'ab'];
      await db.transaction(async (q) => {
        for (const [i, v] of values.entries()) await insert(db, q, { name: `order-${i}`, c_varchar: v });
      });
      const rows = await db.read((q) =>
        q.all<{ c_varchar: string | null }>(
          db.dialect.builder
            .selectFrom('tabSample')
            .select('c_varchar')
            .where('name', 'like', 'order-%')
            .orderBy('c_varchar', (o) => o.asc().nullsFirst())
            .compile(),
        ),
      );
      assert.deepEqual(
        rows.map((r) => r.c_varchar),
        [null, '1', 'A', 'B', 'Z', '_x', 'a', 'ab', 'b', 'é'],
      );
    });
  });
}
