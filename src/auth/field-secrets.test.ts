import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { AUTH_TABLE } from './auth-tables.js';
import { deleteFieldSecrets, getFieldSecret, renameFieldSecrets, saveFieldSecret } from './field-secrets.js';
import { checkUserPassword, setUserPassword } from './passwords.js';

const KEY = 'site-key';
const ref = { doctype: 'Email Account', name: 'support', fieldname: 'password' };

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`Password-field secrets on ${dialect.name}`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    after(() => t.drop());

    test('a saved field secret is stored encrypted and read back in clear', async () => {
      const { db } = t;
      await db.transaction((q) => saveFieldSecret(q, db.dialect, ref, 'hunter2', KEY));
      const rows = await db.read((q) =>
        q.all<{ password: string; encrypted: number }>(
          db.dialect.builder.selectFrom(AUTH_TABLE).select(['password', 'encrypted']).where('name', '=', 'support').compile(),
        ),
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0].encrypted, 1);
      assert.ok(!rows[0].password.includes('hunter2'));
      assert.equal(await db.read((q) => getFieldSecret(q, db.dialect, ref, KEY)), 'hunter2');
    });

    test('saving again replaces the value', async () => {
      const { db } = t;
      await db.transaction((q) => saveFieldSecret(q, db.dialect, ref, 'changed', KEY));
      assert.equal(await db.read((q) => getFieldSecret(q, db.dialect, ref, KEY)), 'changed');
    });

    test('a field without a stored secret reads as undefined', async () => {
      const { db } = t;
      const missing = { ...ref, fieldname: 'other' };
      assert.equal(await db.read((q) => getFieldSecret(q, db.dialect, missing, KEY)), undefined);
    });

    test('a password hash is never returned as a field secret', async () => {
      const { db } = t;
      await db.transaction((q) => setUserPassword(q, db.dialect, 'u1', 'pw'));
      const userRef = { doctype: 'User', name: 'u1', fieldname: 'password' };
      assert.equal(await db.read((q) => getFieldSecret(q, db.dialect, userRef, KEY)), undefined);
    });

    test('renaming moves the secrets and deleting removes every row of the document', async () => {
      const { db } = t;
      await db.transaction((q) => saveFieldSecret(q, db.dialect, { doctype: 'User', name: 'u1', fieldname: 'smtp' }, 'x', KEY));
      assert.equal(await db.transaction((q) => renameFieldSecrets(q, db.dialect, 'User', 'u1', 'u2')), 2);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'u2', 'pw')), true);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'u1', 'pw')), false);
      assert.equal(await db.transaction((q) => deleteFieldSecrets(q, db.dialect, 'User', 'u2')), 2);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'u2', 'pw')), false);
      assert.equal(await db.read((q) => getFieldSecret(q, db.dialect, ref, KEY)), 'changed');
    });
  });
}
