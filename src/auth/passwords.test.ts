import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { AuthenticationError, ValidationError } from '../errors/index.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { checkUserPassword, hashPassword, MAX_PASSWORD_LENGTH, setUserPassword, verifyPassword } from './passwords.js';

describe('password hashing', () => {
  test('a hashed password verifies and a different one does not', async () => {
    const stored = await hashPassword('correct horse');
    assert.match(stored, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    assert.equal(await verifyPassword('correct horse', stored), true);
    assert.equal(await verifyPassword('correct horsf', stored), false);
    assert.equal(await verifyPassword('', stored), false);
  });

  test('the same password hashes differently each time because of the random salt', async () => {
    const a = await hashPassword('same');
    const b = await hashPassword('same');
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('same', b), true);
  });

  test('passwords of 513 characters are refused before hashing, 512 are accepted', async () => {
    const tooLong = 'a'.repeat(MAX_PASSWORD_LENGTH + 1);
    await assert.rejects(
      hashPassword(tooLong),
      (err) => err instanceof AuthenticationError && err.message === 'Password size exceeded the maximum allowed size',
    );
    const stored = await hashPassword('a'.repeat(MAX_PASSWORD_LENGTH));
    await assert.rejects(verifyPassword(tooLong, stored), AuthenticationError);
    assert.equal(await verifyPassword('a'.repeat(MAX_PASSWORD_LENGTH), stored), true);
  });

  test('length is counted in characters, so 512 emoji are accepted', async () => {
    const stored = await hashPassword('😀'.repeat(MAX_PASSWORD_LENGTH));
    assert.equal(await verifyPassword('😀'.repeat(MAX_PASSWORD_LENGTH), stored), true);
  });

  test('an empty password cannot be set', async () => {
    await assert.rejects(hashPassword(''), ValidationError);
  });

  test('a malformed or foreign stored value never matches', async () => {
    assert.equal(await verifyPassword('x', ''), false);
    assert.equal(await verifyPassword('x', 'pbkdf2_sha256$1$a$b'), false);
    assert.equal(await verifyPassword('x', 'scrypt$3$8$1$c2FsdA==$aGFzaA=='), false);
    assert.equal(await verifyPassword('x', 'scrypt$1073741824$8$1$c2FsdA==$aGFzaA=='), false);
  });
});

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`user passwords in __Auth on ${dialect.name}`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    after(() => t.drop());

    test('a stored user password checks true, a wrong one false', async () => {
      const { db } = t;
      await db.transaction((q) => setUserPassword(q, db.dialect, 'jane@example.com', 's3cret!'));
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'jane@example.com', 's3cret!')), true);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'jane@example.com', 'nope')), false);
    });

    test('setting a password again replaces the old one', async () => {
      const { db } = t;
      await db.transaction((q) => setUserPassword(q, db.dialect, 'bob@example.com', 'first'));
      await db.transaction((q) => setUserPassword(q, db.dialect, 'bob@example.com', 'second'));
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'bob@example.com', 'first')), false);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'bob@example.com', 'second')), true);
    });

    test('a user without a stored password never checks true', async () => {
      const { db } = t;
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'nobody@example.com', 'anything')), false);
      assert.equal(await db.read((q) => checkUserPassword(q, db.dialect, 'nobody@example.com', '')), false);
    });

    test('checking an oversize password is an AuthenticationError', async () => {
      const { db } = t;
      await assert.rejects(
        db.read((q) => checkUserPassword(q, db.dialect, 'jane@example.com', 'x'.repeat(513))),
        AuthenticationError,
      );
    });
  });
}
