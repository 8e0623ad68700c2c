import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDatabaseUrl, openDatabase } from '../../src/storage/open-database.js';
import { testDialects } from '../helpers/dialects.js';

describe('openDatabase', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-open-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [label, toUrl] of [
    ['sqlite:<path>', (p: string) => `sqlite:${p}`],
    ['sqlite://<path>', (p: string) => `sqlite://${p}`],
    ['a plain file path', (p: string) => p],
  ] as const) {
    test(`opens SQLite for ${label}`, async () => {
      const file = join(dir, `${label.replace(/\W+/g, '_')}.db`);
      const db = await openDatabase(toUrl(file));
      try {
        assert.equal(db.dialect.name, 'sqlite');
        assert.deepEqual(await db.read((q) => q.all({ sql: 'select 1 as one', parameters: [] })), [{ one: 1 }]);
        assert.ok((await stat(file)).isFile(), 'the file is created at the given path');
      } finally {
        await db.close();
      }
    });
  }

  test('refuses a URL scheme it does not know', async () => {
    await assert.rejects(openDatabase('mysql://root:secret@localhost/site'), (err: Error) => {
      assert.match(err.message, /Unsupported database URL/);
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
  });

  test('says which PostgreSQL host and port could not be reached, without the password', async () => {
    await assert.rejects(openDatabase('postgres://fw:hunter2@127.0.0.1:1/site'), (err: Error) => {
      assert.match(err.message, /Could not reach PostgreSQL at 127\.0\.0\.1:1\/site/);
      assert.match(err.message, /Check that the server is running/);
      assert.doesNotMatch(err.message, /hunter2/);
      return true;
    });
  });

  const postgres = testDialects().find((d) => d.name === 'postgres');
  test('opens PostgreSQL for postgres:// and postgresql:// URLs', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, async () => {
    const created = await postgres!.createUrl();
    try {
      for (const url of [created.url, created.url.replace(/^postgres:/, 'postgresql:')]) {
        const db = await openDatabase(url, { poolSize: 2 });
        try {
          assert.equal(db.dialect.name, 'postgres');
          assert.deepEqual(await db.read((q) => q.all({ sql: 'select 1 as one', parameters: [] })), [{ one: 1 }]);
        } finally {
          await db.close();
        }
      }
    } finally {
      await created.drop();
    }
  });
});

describe('describeDatabaseUrl', () => {
  test('hides the password of a PostgreSQL URL, in the authority or the query', () => {
    assert.equal(describeDatabaseUrl('postgres://fw:s3cr%40t@db:5433/site?sslmode=require'), 'postgres://fw:***@db:5433/site?sslmode=require');
    assert.equal(describeDatabaseUrl('postgresql://fw@db/site?password=x'), 'postgresql://fw@db/site?password=***');
  });

  test('leaves URLs without a password and SQLite paths alone', () => {
    assert.equal(describeDatabaseUrl('postgres://fw@db:5432/site'), 'postgres://fw@db:5432/site');
    assert.equal(describeDatabaseUrl('sqlite:./sites/a/site.db'), 'sqlite:./sites/a/site.db');
    assert.equal(describeDatabaseUrl('./sites/a/site.db'), './sites/a/site.db');
  });
});
