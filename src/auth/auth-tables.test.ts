import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { AUTH_TABLE, createAuthTables, LOGIN_ATTEMPT_TABLE, SESSIONS_TABLE } from './auth-tables.js';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`auth tables on ${dialect.name}`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    after(() => t.drop());

    test('creating the tables again changes nothing and keeps their rows', async () => {
      const { db } = t;
      const b = db.dialect.builder;
      await db.transaction((q) => q.run(b.insertInto(AUTH_TABLE).values({ doctype: 'User', name: 'u', fieldname: 'password', password: 'h' }).compile()));
      await db.transaction((q) => createAuthTables(q, db.dialect));
      const rows = await db.read((q) => q.all(b.selectFrom(AUTH_TABLE).selectAll().compile()));
      assert.deepEqual(rows, [{ doctype: 'User', name: 'u', fieldname: 'password', password: 'h', encrypted: 0 }]);
    });

    test('the tables have the documented columns and the sessions table an index on user', async () => {
      const { db } = t;
      const columns = async (table: string) => (await db.read((q) => db.dialect.listColumns(q, table))).map((c) => c.name);
      assert.deepEqual(await columns(AUTH_TABLE), ['doctype', 'name', 'fieldname', 'password', 'encrypted']);
      assert.deepEqual(await columns(SESSIONS_TABLE), ['sid', 'user', 'created', 'last_updated', 'expires_at', 'ip', 'user_agent', 'csrf_token']);
      assert.deepEqual(await columns(LOGIN_ATTEMPT_TABLE), ['key', 'failures', 'window_start']);
      const indexes = await db.read((q) => db.dialect.listIndexes(q, SESSIONS_TABLE));
      assert.ok(indexes.includes(`${SESSIONS_TABLE}_user_index`));
    });

    test('one document field holds one auth row', async () => {
      const { db } = t;
      const insert = db.dialect.builder.insertInto(AUTH_TABLE).values({ doctype: 'User', name: 'u', fieldname: 'password', password: 'other' }).compile();
      await assert.rejects(db.transaction((q) => q.run(insert)));
    });
  });
}
