import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Database } from '../../src/storage/database.js';
import type { ColumnSpec } from '../../src/storage/dialect.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

const ROWS = 2000;

for (const d of testDialects()) {
  describe(`storage conformance, schema and streaming: ${d.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    const type = (spec: ColumnSpec) => sql.raw(db.dialect.columnType(spec));

    before(async () => {
      ({ db, drop } = await openTestDatabase(d));
      const b = db.dialect.builder;
      await db.transaction(async (q) => {
        await q.run(
          b.schema
            .createTable('tabRow')
            .addColumn('name', type({ kind: 'varchar', length: 140 }), (c) => c.primaryKey())
            .addColumn('idx', type({ kind: 'int' }))
            .compile(),
        );
        for (let start = 0; start < ROWS; start += 500) {
          const batch = Array.from({ length: 500 }, (_, i) => ({ name: `row-${String(start + i).padStart(5, '0')}`, idx: start + i }));
          await q.run(b.insertInto('tabRow').values(batch).compile());
        }
      });
    });
    after(() => drop());

    const allRows = () => db.dialect.builder.selectFrom('tabRow').select(['name', 'idx']).orderBy('idx').compile();

    test(`iterate streams all ${ROWS} rows in order`, async () => {
      const seen = await db.read(async (q) => {
        const idx: number[] = [];
        for await (const row of q.iterate<{ idx: number }>(allRows())) idx.push(row.idx);
        return idx;
      });
      assert.deepEqual(
        seen,
        Array.from({ length: ROWS }, (_, i) => i),
      );
    });

    test('iterate binds parameters and works inside a transaction', async () => {
      const names = await db.transaction(async (q) => {
        const out: string[] = [];
        const query = db.dialect.builder
          .selectFrom('tabRow')
          .select('name')
          .where('idx', '>=', ROWS - 3)
          .orderBy('idx');
        for await (const row of q.iterate<{ name: string }>(query.compile())) out.push(row.name);
        return out;
      });
      assert.deepEqual(names, ['row-01997', 'row-01998', 'row-01999']);
    });

    test('other statements can run while an iteration is open, and stopping early frees the connection', async () => {
      const result = await db.read(async (q) => {
        let taken = 0;
        let lookedUp = 0;
        for await (const row of q.iterate<{ name: string }>(allRows())) {
          const [again] = await q.all<{ idx: number }>(db.dialect.builder.selectFrom('tabRow').select('idx').where('name', '=', row.name).compile());
          lookedUp += again.idx;
          if (++taken === 10) break;
        }
        const [after] = await q.all<{ n: number }>(
          db.dialect.builder
            .selectFrom('tabRow')
            .select((eb) => eb.fn.countAll().as('n'))
            .compile(),
        );
        return { taken, lookedUp, total: after.n };
      });
      assert.deepEqual(result, { taken: 10, lookedUp: 45, total: ROWS });
      // The pool (or reader) is still healthy afterwards.
      assert.equal((await db.read((q) => q.all(allRows()))).length, ROWS);
    });

    test('listColumns reports the columns in order, and nothing for a missing table', async () => {
      const columns = await db.read((q) => db.dialect.listColumns(q, 'tabRow'));
      assert.deepEqual(
        columns.map((c) => c.name),
        ['name', 'idx'],
      );
      assert.ok(columns.every((c) => c.type === c.type.toLowerCase() && c.type.length > 0));
      assert.deepEqual(await db.read((q) => db.dialect.listColumns(q, 'tabMissing')), []);
    });

    test('listIndexes names the indexes created on a table', async () => {
      await db.transaction((q) => q.run(db.dialect.builder.schema.createIndex('tabRow_idx_index').on('tabRow').column('idx').compile()));
      const indexes = await db.read((q) => db.dialect.listIndexes(q, 'tabRow'));
      assert.ok(indexes.includes('tabRow_idx_index'), `got ${indexes.join(', ')}`);
      assert.deepEqual(await db.read((q) => db.dialect.listIndexes(q, 'tabMissing')), []);
    });

    test('a short varchar is widened in place and keeps its data', async () => {
      const short = { kind: 'varchar', length: 10 } as const;
      const wide = { kind: 'varchar', length: 140 } as const;
      const b = db.dialect.builder;
      await db.transaction(async (q) => {
        await q.run(
          b.schema
            .createTable('tabNarrow')
            .addColumn('name', type(short), (c) => c.primaryKey())
            .addColumn('title', type(short))
            .compile(),
        );
        await q.run(b.insertInto('tabNarrow').values({ name: 'n1', title: 'ten chars!' }).compile());
      });
      const title = async () => (await db.read((q) => db.dialect.listColumns(q, 'tabNarrow'))).find((c) => c.name === 'title')!;
      const before = await title();
      if (db.dialect.needsWidening(before, wide)) {
        await db.transaction((q) => db.dialect.widenColumn(q, 'tabNarrow', 'title', wide));
      }
      assert.equal(db.dialect.needsWidening(await title(), wide), false);
      assert.equal(db.dialect.needsWidening(await title(), short), false, 'narrowing is never asked for');
      const long = 'x'.repeat(140);
      await db.transaction((q) => q.run(b.insertInto('tabNarrow').values({ name: 'n2', title: long }).compile()));
      const rows = await db.read((q) => q.all(b.selectFrom('tabNarrow').select(['name', 'title']).orderBy('name').compile()));
      assert.deepEqual(rows, [
        { name: 'n1', title: 'ten chars!' },
        { name: 'n2', title: long },
      ]);
    });

    test('a varchar that becomes text is widened to hold long values', async () => {
      const b = db.dialect.builder;
      await db.transaction((q) =>
        q.run(
          b.schema
            .createTable('tabToText')
            .addColumn('name', type({ kind: 'varchar', length: 140 }), (c) => c.primaryKey())
            .addColumn('body', type({ kind: 'varchar', length: 20 }))
            .compile(),
        ),
      );
      const body = (await db.read((q) => db.dialect.listColumns(q, 'tabToText'))).find((c) => c.name === 'body')!;
      if (db.dialect.needsWidening(body, { kind: 'text' })) {
        await db.transaction((q) => db.dialect.widenColumn(q, 'tabToText', 'body', { kind: 'text' }));
      }
      const long = 'ü'.repeat(5000);
      await db.transaction((q) => q.run(b.insertInto('tabToText').values({ name: 't1', body: long }).compile()));
      const [row] = await db.read((q) => q.all<{ body: string }>(b.selectFrom('tabToText').select('body').compile()));
      assert.equal(row.body, long);
    });
  });
}
