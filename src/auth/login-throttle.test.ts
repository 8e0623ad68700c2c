import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { SecurityException } from '../errors/index.js';
import { LOGIN_ATTEMPT_TABLE } from './auth-tables.js';
import { LoginThrottle, throttleKeys, type ThrottleRule } from './login-throttle.js';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

const DEFAULTS: ThrottleRule = { maxFailures: 10, windowSeconds: 60 };

describe('throttleKeys', () => {
  test('always keys on the IP and adds the user once it is known', () => {
    assert.deepEqual(throttleKeys({ ip: '203.0.113.9' }), ['ip:203.0.113.9']);
    assert.deepEqual(throttleKeys({ ip: '203.0.113.9', user: 'jane@example.com' }), ['ip:203.0.113.9', 'user:jane@example.com']);
  });
});

for (const dialect of testDialects()) {
  describe(`LoginThrottle on ${dialect.name}`, () => {
    let t: TestDatabase;
    let now: number;
    const throttle = (rule: ThrottleRule = DEFAULTS) => new LoginThrottle(t.db, rule, { clock: () => now });
    /** One attempt: resolves when allowed, rejects with SecurityException when locked. */
    const attempt = (keys: string[], rule?: ThrottleRule) => throttle(rule).begin(keys);
    const succeed = (keys: string[]) => t.db.transaction((q) => throttle().reset(q, keys));
    const failTimes = async (n: number, keys: string[], rule?: ThrottleRule) => {
      for (let i = 0; i < n; i++) await attempt(keys, rule);
    };
    const locked = (keys: string[], rule?: ThrottleRule) =>
      assert.rejects(attempt(keys, rule), (err: unknown) => {
        assert.ok(err instanceof SecurityException);
        assert.match(err.message, /^Your account has been locked and will resume after \d+ seconds$/);
        return true;
      });

    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    beforeEach(async () => {
      now = 1_700_000_000_000;
      await t.db.transaction((q) => q.run(t.db.dialect.builder.deleteFrom(LOGIN_ATTEMPT_TABLE).compile()));
    });
    after(() => t.drop());

    test('ten failures pass and the eleventh attempt is refused', async () => {
      const keys = throttleKeys({ ip: '203.0.113.1', user: 'jane@example.com' });
      await failTimes(10, keys);
      await locked(keys);
    });

    test('the lockout message counts the seconds left in the window', async () => {
      const keys = throttleKeys({ ip: '203.0.113.2' });
      await failTimes(10, keys);
      now += 15_500;
      await assert.rejects(attempt(keys), { message: 'Your account has been locked and will resume after 45 seconds' });
    });

    test('every later attempt within the window stays refused', async () => {
      const keys = throttleKeys({ ip: '203.0.113.3' });
      await failTimes(10, keys);
      for (let i = 0; i < 5; i++) {
        now += 10_000;
        await locked(keys);
      }
    });

    test('once the window from the first failure has passed, attempts are allowed again', async () => {
      const keys = throttleKeys({ ip: '203.0.113.4' });
      await attempt(keys);
      now += 30_000;
      await failTimes(9, keys);
      await locked(keys);
      now += 30_000;
      await attempt(keys);
      await failTimes(9, keys);
      await locked(keys);
    });

    test('failures spread over more than one window never lock', async () => {
      const keys = throttleKeys({ ip: '203.0.113.5' });
      for (let i = 0; i < 30; i++) {
        await attempt(keys);
        now += 7_000;
      }
    });

    test('a success resets both the user and the IP counter', async () => {
      const keys = throttleKeys({ ip: '203.0.113.6', user: 'jane@example.com' });
      await failTimes(10, keys);
      await succeed(keys);
      await failTimes(10, keys);
      await locked(keys);
      await locked(throttleKeys({ ip: '203.0.113.6' }));
    });

    test('the IP counter is shared by every user from that address', async () => {
      for (let i = 0; i < 10; i++) await attempt(throttleKeys({ ip: '203.0.113.7', user: `user${i}@example.com` }));
      await locked(throttleKeys({ ip: '203.0.113.7', user: 'fresh@example.com' }));
      await attempt(throttleKeys({ ip: '198.51.100.7', user: 'fresh@example.com' }));
    });

    test('the user counter follows the user across addresses', async () => {
      for (let i = 0; i < 10; i++) await attempt(throttleKeys({ ip: `198.51.100.${i + 10}`, user: 'roamer@example.com' }));
      await locked(throttleKeys({ ip: '198.51.100.99', user: 'roamer@example.com' }));
    });

    test('a limit of 0 turns the throttle off and writes nothing', async () => {
      const off: ThrottleRule = { maxFailures: 0, windowSeconds: 60 };
      const keys = throttleKeys({ ip: '203.0.113.8' });
      await failTimes(50, keys, off);
      const rows = await t.db.read((q) => q.all(t.db.dialect.builder.selectFrom(LOGIN_ATTEMPT_TABLE).selectAll().compile()));
      assert.equal(rows.length, 0);
    });

    test('parallel attempts never pass the limit together', async () => {
      const keys = throttleKeys({ ip: '203.0.113.9', user: 'burst@example.com' });
      const results = await Promise.allSettled(Array.from({ length: 25 }, () => attempt(keys)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof SecurityException);
    });
  });
}
