import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { PermissionError } from '../../src/errors/index.js';
import { openDatabase } from '../../src/storage/open-database.js';
import type { Database } from '../../src/storage/database.js';

/**
 * The first reader keeps its read transaction from one unit to the next while nobody commits
 * (storage/sqlite/kept-snapshot.ts): no unit may see a state older than the last commit before
 * it began, whoever made that commit, and an idle reader must not hold the checkpointer back.
 */
describe('SQLite: the kept read snapshot', () => {
  let dir: string;
  let file: string;
  let db: Database;
  let other: Database;
  const count = (d: Database) => d.read(async (q) => Number((await q.all<{ n: number }>({ sql: 'select count(*) as n from t', parameters: [] }))[0]?.n));
  const insert = (d: Database) => d.transaction((q) => q.run({ sql: 'insert into t (n) values (1)', parameters: [] }));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-kept-'));
    file = join(dir, 'site.db');
    db = await openDatabase(`sqlite:${file}`);
    // Another SqliteDatabase on the file stands for another process (fw serve --workers).
    other = await openDatabase(`sqlite:${file}`);
    await db.transaction((q) => q.run({ sql: 'create table t (n integer)', parameters: [] }));
  });
  after(async () => {
    await db.close();
    await other.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("every unit sees the commits made before it began, by this database's writer or another process's", async () => {
    let expected = await count(db);
    for (let i = 0; i < 50; i++) {
      await insert(i % 3 === 0 ? db : other);
      expected++;
      assert.equal(await count(db), expected, `commit ${i} went unseen by a read unit`);
      const [row] = await db.readOne<{ n: number }>({ sql: 'select count(*) as n from t', parameters: [] });
      assert.equal(Number(row?.n), expected, `commit ${i} went unseen by readOne`);
      assert.equal(await count(db), expected, 'a unit without a commit before it sees the same');
    }
  });

  test('a write refused inside a read unit leaves the next units reading normally', async () => {
    const before = await count(db);
    await assert.rejects(
      db.read((q) => q.run({ sql: 'insert into t (n) values (2)', parameters: [] })),
      (err) => err instanceof PermissionError,
    );
    assert.equal(await count(db), before);
    await insert(other);
    assert.equal(await count(db), before + 1);
  });

  test('an idle reader lets go of its snapshot, so a checkpoint can copy every frame', async () => {
    await count(db);
    // Committed by another process after the reader's snapshot: until the reader lets go, a
    // checkpoint cannot copy these frames into the database file.
    for (let i = 0; i < 5; i++) await insert(other);
    const raw = new BetterSqlite3(file);
    try {
      let done = false;
      for (let waited = 0; !done && waited < 10_000; waited += 50) {
        const [result] = raw.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
        done = result !== undefined && result.log === result.checkpointed;
        if (!done) await sleep(50);
      }
      assert.ok(done, 'the WAL was never fully checkpointed: a reader kept an old snapshot');
    } finally {
      raw.close();
    }
  });
});
