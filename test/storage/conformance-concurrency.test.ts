import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Database, Queryable } from '../../src/storage/database.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

const WORKERS = 20;

async function createTables(db: Database): Promise<void> {
  const b = db.dialect.builder.schema;
  const varchar = sql.raw(db.dialect.columnType({ kind: 'varchar', length: 140 }));
  const int = sql.raw(db.dialect.columnType({ kind: 'int' }));
  await db.transaction(async (q) => {
    await q.run(
      b
        .createTable('tabCounter')
        .addColumn('name', varchar, (c) => c.primaryKey())
        .addColumn('n', int)
        .compile(),
    );
    await q.run(
      b
        .createTable('tabSeries')
        .addColumn('name', varchar, (c) => c.primaryKey())
        .addColumn('current', int)
        .compile(),
    );
  });
}

async function counterValue(db: Database, name: string): Promise<number> {
  const [row] = await db.read((q) => q.all<{ n: number }>(db.dialect.builder.selectFrom('tabCounter').select('n').where('name', '=', name).compile()));
  return row.n;
}

for (const d of testDialects()) {
  describe(`storage conformance, concurrent writers: ${d.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    before(async () => {
      ({ db, drop } = await openTestDatabase(d));
      await createTables(db);
    });
    after(() => drop());

    const resetCounter = (name: string) => db.transaction((q) => q.run(db.dialect.builder.insertInto('tabCounter').values({ name, n: 0 }).compile()));

    test('parallel transactions incrementing one row in place lose no update', async () => {
      await resetCounter('in-place');
      const increment = db.dialect.builder.updateTable('tabCounter').set({ n: sql`n + 1` }).where('name', '=', 'in-place').compile();
      await Promise.all(
        Array.from({ length: WORKERS }, () =>
          db.transaction(async (q) => {
            for (let i = 0; i < 5; i++) await q.run(increment);
          }),
        ),
      );
      assert.equal(await counterValue(db, 'in-place'), WORKERS * 5);
    });

    test('read-modify-write under a row lock (where the dialect has them) loses no update', async () => {
      await resetCounter('locked');
      const b = db.dialect.builder;
      const readCurrent = (q: Queryable) => {
        const query = b.selectFrom('tabCounter').select('n').where('name', '=', 'locked');
        return q.all<{ n: number }>((db.dialect.supportsRowLocks ? query.forUpdate() : query).compile());
      };
      await Promise.all(
        Array.from({ length: WORKERS }, () =>
          db.transaction(async (q) => {
            const [{ n }] = await readCurrent(q);
            await q.run(
              b
                .updateTable('tabCounter')
                .set({ n: n + 1 })
                .where('name', '=', 'locked')
                .compile(),
            );
          }),
        ),
      );
      assert.equal(await counterValue(db, 'locked'), WORKERS);
    });

    test('an upsert that increments and returns the counter hands out each number once', async () => {
      const next = (prefix: string) =>
        db.transaction(async (q) => {
          const [row] = await q.all<{ current: number }>(
            db.dialect.builder
              .insertInto('tabSeries')
              .values({ name: prefix, current: 1 })
              .onConflict((oc) => oc.column('name').doUpdateSet({ current: sql`${sql.ref('tabSeries.current')} + 1` }))
              .returning('current')
              .compile(),
          );
          return row.current;
        });
      assert.deepEqual([await next('TODO-'), await next('TODO-'), await next('TODO-')], [1, 2, 3]);
      const parallel = await Promise.all(Array.from({ length: WORKERS }, () => next('PAR-')));
      assert.deepEqual(
        parallel.sort((a, b) => a - b),
        Array.from({ length: WORKERS }, (_, i) => i + 1),
      );
    });

    test('reads run alongside an open write transaction and see only committed data', async () => {
      await resetCounter('visibility');
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      const writer = db.transaction(async (q) => {
        await q.run(db.dialect.builder.updateTable('tabCounter').set({ n: 99 }).where('name', '=', 'visibility').compile());
        written();
        await gate;
      });
      await wrote;
      assert.equal(await counterValue(db, 'visibility'), 0);
      release();
      await writer;
      assert.equal(await counterValue(db, 'visibility'), 99);
    });

    test('close waits for the transaction in flight to commit', async () => {
      const created = await d.createUrl();
      try {
        const own = await openDatabase(created.url);
        await createTables(own);
        let started!: () => void;
        const inFlight = new Promise<void>((resolve) => (started = resolve));
        const work = own.transaction(async (q) => {
          started();
          await new Promise((resolve) => setImmediate(resolve));
          await q.run(own.dialect.builder.insertInto('tabCounter').values({ name: 'late', n: 1 }).compile());
          return 'committed';
        });
        await inFlight;
        await Promise.all([own.close(), work]);
        const reopened = await openDatabase(created.url);
        try {
          assert.equal(await counterValue(reopened, 'late'), 1);
        } finally {
          await reopened.close();
        }
      } finally {
        await created.drop();
      }
    });
  });
}
