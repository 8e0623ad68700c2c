import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { PermissionError } from '../../src/errors/index.js';
import type { Database, Queryable } from '../../src/storage/database.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

/**
 * The storage promise of a read unit (docs/architecture.md "Units of work"): one snapshot for all
 * its statements, and a write inside it refused by the database itself.
 */
for (const d of testDialects()) {
  describe(`read units: ${d.name}`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    const b = () => db.dialect.builder;
    const readValue = async (q: Queryable, name: string) =>
      (await q.all<{ n: number }>(b().selectFrom('tabCounter').select('n').where('name', '=', name).compile()))[0]?.n;
    const setValue = (name: string, n: number) => db.transaction((q) => q.run(b().updateTable('tabCounter').set({ n }).where('name', '=', name).compile()));

    before(async () => {
      ({ db, drop } = await openTestDatabase(d));
      await db.transaction(async (q) => {
        await q.run(
          b()
            .schema.createTable('tabCounter')
            .addColumn('name', sql.raw(db.dialect.columnType({ kind: 'varchar', length: 140 })), (c) => c.primaryKey())
            .addColumn('n', sql.raw(db.dialect.columnType({ kind: 'int' })))
            .compile(),
        );
        await q.run(
          b()
            .insertInto('tabCounter')
            .values([
              { name: 'a', n: 1 },
              { name: 'b', n: 1 },
            ])
            .compile(),
        );
      });
    });
    after(() => drop());

    test('every statement of a read unit sees the snapshot of its first, whatever commits meanwhile', async () => {
      await setValue('a', 1);
      const seen = await db.read(async (q) => {
        const first = await readValue(q, 'a');
        await setValue('a', 2);
        await setValue('b', 2);
        return { first, again: await readValue(q, 'a'), other: await readValue(q, 'b') };
      });
      assert.deepEqual(seen, { first: 1, again: 1, other: 1 }, 'the commit after the first read is not seen');
      assert.equal(await db.read((q) => readValue(q, 'a')), 2, 'the next unit sees it');
    });

    test('a unit waiting on I/O keeps its snapshot to itself: a unit started after a commit sees the commit', async () => {
      await setValue('a', 10);
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      const first = db.read(async (q) => {
        const before = await readValue(q, 'a');
        await paused;
        return [before, await readValue(q, 'a')];
      });
      await setValue('a', 11);
      assert.equal(await db.read((q) => readValue(q, 'a')), 11);
      assert.deepEqual(await db.readOne(b().selectFrom('tabCounter').select('n').where('name', '=', 'a').compile()), [{ n: 11 }]);
      resume();
      assert.deepEqual(await first, [10, 10]);
    });

    test('a write inside a read unit is refused by the database as a 403 PermissionError, and nothing changes', async () => {
      await setValue('a', 5);
      const update = b().updateTable('tabCounter').set({ n: 99 }).where('name', '=', 'a').compile();
      const refused = async (work: Promise<unknown>) => {
        const err = await work.then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(err instanceof PermissionError, `expected PermissionError, got ${String(err)}`);
        assert.equal(err.status, 403);
        assert.equal(err.details.readOnlyRequest, true);
        assert.match(err.messages.map((m) => m.message).join(' '), /POST/);
      };
      await refused(db.read((q) => q.run(update)));
      // After a read, as a unit of work does (its metadata check comes first).
      await refused(db.read(async (q) => (await readValue(q, 'a'), q.run(update))));
      await refused(db.readOne(update));
      await refused(db.read((q) => q.run(b().schema.createTable('tabSneaky').addColumn('x', sql.raw('text')).compile())));
      assert.equal(await db.read((q) => readValue(q, 'a')), 5);
      // The connection that refused serves the next unit as usual.
      assert.equal(await db.read((q) => readValue(q, 'b')), await db.read((q) => readValue(q, 'b')));
    });

    test('a failed statement ends the unit cleanly: the next unit reads fresh data', async () => {
      await assert.rejects(db.read((q) => q.all({ sql: 'select * from "tabMissing"', parameters: [] })));
      await setValue('b', 7);
      assert.equal(await db.read((q) => readValue(q, 'b')), 7);
    });

    test('rows iterated in a read unit come back whole', async () => {
      const rows: unknown[] = [];
      await db.read(async (q) => {
        for await (const row of q.iterate(b().selectFrom('tabCounter').select('name').orderBy('name').compile())) rows.push(row);
      });
      assert.deepEqual(rows, [{ name: 'a' }, { name: 'b' }]);
    });
  });
}
