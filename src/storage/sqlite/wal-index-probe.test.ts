import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { WalIndexProbe } from './wal-index-probe.js';

test('WalIndexProbe sees each commit and nothing else', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fw-probe-'));
  const file = join(dir, 'x.db');
  try {
    assert.equal(WalIndexProbe.open(file), undefined, 'no -shm file yet');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (n integer)');
    const probe = WalIndexProbe.open(file);
    assert.ok(probe);
    assert.equal(probe.changed(), true, 'the first look has nothing to compare with');
    assert.equal(probe.changed(), false);
    db.prepare('select count(*) from t').get();
    assert.equal(probe.changed(), false, 'a read is not a commit');
    db.prepare('insert into t values (1)').run();
    assert.equal(probe.changed(), true);
    assert.equal(probe.changed(), false);
    probe.close();
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
