import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/open-database.js';
import type { Database } from '../../src/storage/database.js';

const counterOf = (db: Database) => db.read(async (q) => q.changeCounter?.());
const insert = (db: Database, n: number) => db.transaction((q) => q.run({ sql: 'insert into t (n) values (?)', parameters: [n] }));

// The metadata check of every request skips its read while this counter stays the same, so it
// must move for every commit: this process's own and another process's.
describe('SQLite change counter of the read connection', () => {
  let dir: string;
  let db: Database;
  let other: Database;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-counter-'));
    db = await openDatabase(`sqlite:${join(dir, 'site.db')}`);
    other = await openDatabase(`sqlite:${join(dir, 'site.db')}`);
    await db.transaction((q) => q.run({ sql: 'create table t (n integer)', parameters: [] }));
  });
  after(async () => {
    await db.close();
    await other.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('stays the same while nothing is committed', async () => {
    const first = await counterOf(db);
    assert.equal(typeof first, 'number');
    await db.read((q) => q.all({ sql: 'select count(*) from t', parameters: [] }));
    assert.equal(await counterOf(db), first);
  });

  test("changes after a commit of the same database's writer", async () => {
    const before = await counterOf(db);
    await insert(db, 1);
    assert.notEqual(await counterOf(db), before);
  });

  test('changes after a commit of another connection to the file (another process)', async () => {
    const before = await counterOf(db);
    await insert(other, 2);
    assert.notEqual(await counterOf(db), before);
  });

  test('changes for every one of many quick commits, whichever connection makes them', async () => {
    // Within a second of each other: the WAL-index header alone decides (see wal-index-probe.ts).
    let previous = await counterOf(db);
    for (let i = 0; i < 20; i++) {
      await insert(i % 2 === 0 ? other : db, 100 + i);
      const now = await counterOf(db);
      assert.notEqual(now, previous, `commit ${i} went unseen`);
      assert.equal(await counterOf(db), now);
      previous = now;
    }
  });

  test('does not change for a rolled-back transaction', async () => {
    const before = await counterOf(db);
    await assert.rejects(
      db.transaction(async (q) => {
        await q.run({ sql: 'insert into t (n) values (3)', parameters: [] });
        throw new Error('undo');
      }),
    );
    assert.equal(await counterOf(db), before);
  });

  test('is not offered by an in-memory database, whose reads share the writer connection', async () => {
    const memory = await openDatabase('sqlite::memory:');
    try {
      assert.equal(await counterOf(memory), undefined);
    } finally {
      await memory.close();
    }
  });
});
