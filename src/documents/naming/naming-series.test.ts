import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { ValidationError } from '../../errors/index.js';
import type { Database } from '../../storage/database.js';
import { openTestDatabase, testDialects } from '../../../test/helpers/dialects.js';
import { nextAutoincrementValue, nextSeriesValue, noteAutoincrementValue, seriesTableStatement } from './naming-series.js';

for (const dialect of testDialects()) {
  describe(`series counters (${dialect.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      await db.transaction((q) => q.run(seriesTableStatement(db.dialect)));
    });
    after(() => drop());

    const next = (prefix: string) => db.transaction((q) => nextSeriesValue({ q, dialect: db.dialect }, prefix));

    test('creating the series table again changes nothing', async () => {
      await next('DDL-');
      await db.transaction((q) => q.run(seriesTableStatement(db.dialect)));
      assert.equal(await next('DDL-'), 2);
    });

    test('counts a new prefix from 1 upwards', async () => {
      assert.deepEqual([await next('TASK-'), await next('TASK-'), await next('TASK-')], [1, 2, 3]);
    });

    test('keeps one counter per prefix', async () => {
      await next('A-');
      await next('A-');
      assert.equal(await next('B-'), 1);
      assert.equal(await next('A-'), 3);
    });

    test('treats prefixes that differ only in case, spaces or Unicode as different series', async () => {
      assert.equal(await next('Größe/ x'), 1);
      assert.equal(await next('grösse/ x'), 1);
      assert.equal(await next('Größe/ x'), 2);
    });

    test('gives the number of a rolled-back transaction to the next one', async () => {
      assert.equal(await next('RB-'), 1);
      await assert.rejects(
        db.transaction(async (q) => {
          assert.equal(await nextSeriesValue({ q, dialect: db.dialect }, 'RB-'), 2);
          throw new Error('abandon');
        }),
        /abandon/,
      );
      assert.equal(await next('RB-'), 2);
    });

    test('never hands out one number twice to 50 concurrent transactions', async () => {
      const numbers = await Promise.all(
        Array.from({ length: 50 }, () =>
          db.transaction(async (q) => {
            const n = await nextSeriesValue({ q, dialect: db.dialect }, 'RACE-');
            await tick(); // hold the transaction open so the others overlap with it
            return n;
          }),
        ),
      );
      assert.equal(new Set(numbers).size, 50);
      assert.ok(Math.max(...numbers) >= 50);
    });

    test('keeps autoincrement counters apart from a series with the same text', async () => {
      await next('Note');
      await next('Note');
      const first = await db.transaction((q) => nextAutoincrementValue({ q, dialect: db.dialect }, 'Note'));
      assert.equal(first, 1);
    });

    test('refuses a series prefix spelled like an autoincrement key', async () => {
      await assert.rejects(next('#autoincrement:Note'), ValidationError);
    });

    test('moves an autoincrement counter up to a number a client used, never down', async () => {
      const ctx = (q: Parameters<Parameters<Database['transaction']>[0]>[0]) => ({ q, dialect: db.dialect });
      await db.transaction((q) => noteAutoincrementValue(ctx(q), 'Item', 10));
      assert.equal(await db.transaction((q) => nextAutoincrementValue(ctx(q), 'Item')), 11);
      await db.transaction((q) => noteAutoincrementValue(ctx(q), 'Item', 3));
      assert.equal(await db.transaction((q) => nextAutoincrementValue(ctx(q), 'Item')), 12);
    });
  });
}
