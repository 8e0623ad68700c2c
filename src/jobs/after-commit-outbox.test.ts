import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queryable } from '../storage/database.js';
import { SqliteDatabase } from '../storage/sqlite/sqlite-database.js';
import { AfterCommitOutbox, outboxTableStatement } from './after-commit-outbox.js';

const TABLE = '__fw_test_outbox';

interface Entry {
  readonly n: number;
  readonly poison?: boolean;
}

describe('after-commit outbox', () => {
  let dir: string;
  let db: SqliteDatabase;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-outbox-'));
    db = new SqliteDatabase(join(dir, 'site.db'));
    await db.transaction((q) => q.run(outboxTableStatement(db.dialect, TABLE)));
  });
  after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** An outbox whose batches record what they applied, failing on a poisoned entry. */
  function outbox() {
    const applied: number[] = [];
    const batches: number[] = [];
    const reports: unknown[] = [];
    const box = new AfterCommitOutbox<Entry, { q: Queryable }>({
      db,
      table: TABLE,
      transaction: (work) => db.transaction((q) => work({ q })),
      apply: async (_scope, entries) => {
        batches.push(entries.length);
        for (const e of entries) {
          if (e.poison) throw new Error(`entry ${e.n} cannot be applied`);
          applied.push(e.n);
        }
      },
      report: (err) => reports.push(err),
      batchMs: 1,
      inOrder: true,
    });
    return { box, applied, batches, reports };
  }

  async function write(box: AfterCommitOutbox<Entry, { q: Queryable }>, entries: Entry[]): Promise<void> {
    await db.transaction(async (q) => {
      for (const entry of entries) await box.write({ q, unit: { afterCommit: () => {} } }, entry);
    });
  }

  const waiting = async () => (await db.read((q) => q.all({ sql: `select count(*) as n from "${TABLE}"`, parameters: [] })))[0]!.n;

  test('a batch applies every waiting entry in the order written, in one transaction', async () => {
    const { box, applied, batches, reports } = outbox();
    await write(box, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await box.sweep();
    assert.deepEqual(applied, [1, 2, 3]);
    assert.deepEqual(batches, [3]);
    assert.deepEqual(reports, []);
    assert.equal(Number(await waiting()), 0);
  });

  test('an entry that always fails is set aside and reported; the others apply in order', async () => {
    const { box, applied, reports } = outbox();
    await write(box, [{ n: 1 }, { n: 2, poison: true }, { n: 3 }]);
    await box.sweep();
    assert.deepEqual(applied.slice(-2), [1, 3], 'the batch rolled back; each entry then went alone');
    assert.equal(reports.length, 2, 'the failed batch and the entry set aside');
    assert.match(String((reports[1] as Error).message), /set aside: \[\{"n":2,"poison":true\}\]/);
    assert.equal(Number(await waiting()), 0, 'nothing is left to hold back later batches');
    // The next batch is not held back.
    await write(box, [{ n: 4 }]);
    await box.sweep();
    assert.deepEqual(applied.slice(-1), [4]);
  });

  test('a row whose text is not an entry at all is set aside too, by its name', async () => {
    const { box, applied, reports } = outbox();
    await db.transaction((q) => q.run({ sql: `insert into "${TABLE}" (name, entry) values (?, ?)`, parameters: ['0', 'not json'] }));
    await write(box, [{ n: 5 }]);
    await box.sweep();
    assert.deepEqual(applied.slice(-1), [5]);
    assert.match(String((reports.at(-1) as Error).message), /set aside: \[not json\]/);
    assert.equal(Number(await waiting()), 0);
  });

  test('rewrite replaces the entry a write in the same transaction made: one entry, the last state', async () => {
    const { box, applied } = outbox();
    await db.transaction(async (q) => {
      const unit = { q, unit: { afterCommit: () => {} } };
      const name = await box.write(unit, { n: 6 });
      await box.write(unit, { n: 7 });
      await box.rewrite(q, name, { n: 8 });
    });
    await box.sweep();
    assert.deepEqual(applied.slice(-2), [8, 7]);
  });
});
