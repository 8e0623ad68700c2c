import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { consumeLoginState, newLoginSecrets, sha256, STATE_LIFETIME_MS, storeLoginState, type LoginState } from './login-state.js';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;
const T0 = 1_700_000_000_000;

function remembered(browserToken: string): LoginState {
  return { provider: 'Company SSO', redirectTo: '/app', codeVerifier: 'v'.repeat(43), nonce: 'n'.repeat(43), browserHash: sha256(browserToken) };
}

for (const dialect of testDialects()) {
  describe(`social login state on ${dialect.name}`, () => {
    let t: TestDatabase;
    const store = (state: string, value: LoginState, now: number) => t.db.transaction((q) => storeLoginState(q, t.db.dialect, state, value, now));
    const consume = (state: string, now: number) => t.db.transaction((q) => consumeLoginState(q, t.db.dialect, state, now));
    const rows = async () =>
      (await t.db.read((q) => q.all(t.db.dialect.builder.selectFrom('__Auth').select('name').where('doctype', '=', 'Social Login State').compile()))).length;

    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    after(() => t.drop());

    test('a state is answered once, then is unknown', async () => {
      const s = newLoginSecrets();
      await store(s.state, remembered(s.browserToken), T0);
      assert.deepEqual(await consume(s.state, T0 + 1000), remembered(s.browserToken));
      assert.equal(await consume(s.state, T0 + 2000), 'unknown');
    });

    test('only the hash of the state is stored', async () => {
      const s = newLoginSecrets();
      await store(s.state, remembered(s.browserToken), T0);
      const names = await t.db.read((q) =>
        q.all<{ name: string; password: string }>(t.db.dialect.builder.selectFrom('__Auth').select(['name', 'password']).compile()),
      );
      assert.ok(names.some((r) => r.name === sha256(s.state)));
      assert.ok(names.every((r) => r.name !== s.state && !String(r.password).includes(s.state)));
    });

    test('a state past ten minutes is expired, and gone afterwards', async () => {
      const s = newLoginSecrets();
      await store(s.state, remembered(s.browserToken), T0);
      assert.equal(await consume(s.state, T0 + STATE_LIFETIME_MS + 1), 'expired');
      assert.equal(await consume(s.state, T0), 'unknown');
    });

    test('storing a new state sweeps expired ones', async () => {
      const old = newLoginSecrets();
      await store(old.state, remembered(old.browserToken), T0);
      const fresh = newLoginSecrets();
      await store(fresh.state, remembered(fresh.browserToken), T0 + STATE_LIFETIME_MS + 60_000);
      assert.equal(await consume(old.state, T0), 'unknown');
      assert.equal(await rows(), 1);
    });

    test('values that cannot be states are unknown without a lookup', async () => {
      assert.equal(await consume('', T0), 'unknown');
      assert.equal(await consume('x'.repeat(500), T0), 'unknown');
    });
  });
}
