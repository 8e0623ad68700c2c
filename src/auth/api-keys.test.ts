import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables, insertTestUser, setTestUserEnabled } from '../../test/helpers/auth-test-database.js';
import { generateApiCredentials, hashApiSecret, storeApiSecret, verifyApiToken } from './api-keys.js';
import { AUTH_TABLE } from './auth-tables.js';

describe('API credentials', () => {
  test('a generated key is 15 hex characters and the secret 32 (128 bits)', () => {
    const { apiKey, apiSecret } = generateApiCredentials();
    assert.match(apiKey, /^[0-9a-f]{15}$/);
    assert.match(apiSecret, /^[0-9a-f]{32}$/);
    assert.notEqual(generateApiCredentials().apiSecret, apiSecret);
  });

  test('the secret hash is SHA-256 hex', () => {
    assert.equal(hashApiSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`API token verification on ${dialect.name}`, () => {
    let t: TestDatabase;
    const jane = generateApiCredentials();
    const off = generateApiCredentials();
    const verify = (apiKey: string, apiSecret: string) => t.db.read((q) => verifyApiToken(q, t.db.dialect, apiKey, apiSecret));

    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
      const { db } = t;
      await insertTestUser(db, { name: 'jane@example.com', apiKey: jane.apiKey });
      await insertTestUser(db, { name: 'off@example.com', apiKey: off.apiKey, enabled: 0 });
      await insertTestUser(db, { name: 'nosecret@example.com', apiKey: 'abcabcabcabcabc' });
      await db.transaction(async (q) => {
        await storeApiSecret(q, db.dialect, 'jane@example.com', jane.apiSecret);
        await storeApiSecret(q, db.dialect, 'off@example.com', off.apiSecret);
      });
    });
    after(() => t.drop());

    test('the right key and secret give the user', async () => {
      assert.equal(await verify(jane.apiKey, jane.apiSecret), 'jane@example.com');
    });

    test('the secret is stored only as its hash', async () => {
      const rows = await t.db.read((q) =>
        q.all<{ password: string }>(t.db.dialect.builder.selectFrom(AUTH_TABLE).select('password').where('name', '=', 'jane@example.com').compile()),
      );
      assert.deepEqual(rows, [{ password: hashApiSecret(jane.apiSecret) }]);
    });

    test('a wrong secret gives nobody', async () => {
      assert.equal(await verify(jane.apiKey, off.apiSecret), undefined);
      assert.equal(await verify(jane.apiKey, ''), undefined);
    });

    test('an unknown key gives nobody', async () => {
      assert.equal(await verify('000000000000000', jane.apiSecret), undefined);
      assert.equal(await verify('', jane.apiSecret), undefined);
    });

    test('a key with no stored secret gives nobody', async () => {
      assert.equal(await verify('abcabcabcabcabc', ''), undefined);
      assert.equal(await verify('abcabcabcabcabc', 'anything'), undefined);
    });

    test('a disabled user gives nobody, and enabling them again restores the same keys', async () => {
      assert.equal(await verify(off.apiKey, off.apiSecret), undefined);
      await setTestUserEnabled(t.db, 'off@example.com', 1);
      assert.equal(await verify(off.apiKey, off.apiSecret), 'off@example.com');
      await setTestUserEnabled(t.db, 'off@example.com', 0);
      assert.equal(await verify(off.apiKey, off.apiSecret), undefined);
    });

    test('a key found on two users is refused rather than guessed', async () => {
      const shared = generateApiCredentials();
      await insertTestUser(t.db, { name: 'dup1@example.com', apiKey: shared.apiKey });
      await insertTestUser(t.db, { name: 'dup2@example.com', apiKey: shared.apiKey });
      await t.db.transaction((q) => storeApiSecret(q, t.db.dialect, 'dup1@example.com', shared.apiSecret));
      assert.equal(await verify(shared.apiKey, shared.apiSecret), undefined);
    });

    test('storing a new secret makes the old one stop working', async () => {
      const next = generateApiCredentials();
      await t.db.transaction((q) => storeApiSecret(q, t.db.dialect, 'jane@example.com', next.apiSecret));
      assert.equal(await verify(jane.apiKey, jane.apiSecret), undefined);
      assert.equal(await verify(jane.apiKey, next.apiSecret), 'jane@example.com');
    });
  });
}
