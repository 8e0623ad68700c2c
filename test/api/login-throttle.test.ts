import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, freshIp, login } from '../helpers/user-sessions.js';

/*
 * Every scenario uses its own users and client addresses (Fastify inject's `remoteAddress`), so
 * the counters of one never reach another although they share a site.
 */

const PASSWORD = 'throttle-Secret-9';
const LOCKED = /^Your account has been locked and will resume after \d+ seconds$/;

function email(tag: string): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.com`;
}

function assertLocked(res: LightMyRequestResponse): void {
  const { messages } = assertV1Error(res, 429, 'SecurityException');
  assert.match(messages[0].message, LOCKED);
  assert.ok(!res.cookies.some((c) => c.name === 'sid' && c.value !== ''), 'no session is started');
}

async function failTimes(app: FastifyInstance, n: number, usr: string | (() => string), ip: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await login(app, typeof usr === 'string' ? usr : usr(), 'wrong-password', { ip });
    assertV1Error(res, 401, 'AuthenticationError');
  }
}

for (const dialect of testDialects()) {
  describe(`login throttling with the default settings (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('ten failures answer 401 and the eleventh attempt answers 429 even with the right password', async () => {
      const user = email('locked');
      await createUser(t, { email: user, password: PASSWORD });
      const ip = freshIp();
      await failTimes(t.app, 10, user, ip);
      assertLocked(await login(t.app, user, PASSWORD, { ip }));
      assertLocked(await login(t.app, user, 'wrong-password', { ip }));
    });

    test('a locked user stays locked from another address', async () => {
      const user = email('roaming');
      await createUser(t, { email: user, password: PASSWORD });
      await failTimes(t.app, 10, user, freshIp());
      assertLocked(await login(t.app, user, PASSWORD, { ip: freshIp() }));
    });

    test('a locked address refuses another user too, while that user may log in from elsewhere', async () => {
      const attacked = email('attacked');
      const neighbour = email('neighbour');
      await createUser(t, { email: attacked, password: PASSWORD });
      await createUser(t, { email: neighbour, password: PASSWORD });
      const ip = freshIp();
      await failTimes(t.app, 10, attacked, ip);
      assertLocked(await login(t.app, neighbour, PASSWORD, { ip }));
      assert.equal((await login(t.app, neighbour, PASSWORD, { ip: freshIp() })).statusCode, 200);
    });

    test('failures for unknown users count against the address', async () => {
      const user = email('real');
      await createUser(t, { email: user, password: PASSWORD });
      const ip = freshIp();
      await failTimes(t.app, 10, () => email('ghost'), ip);
      assertLocked(await login(t.app, user, PASSWORD, { ip }));
    });

    test('a successful login resets the counters of the user and the address', async () => {
      const user = email('reset');
      await createUser(t, { email: user, password: PASSWORD });
      const ip = freshIp();
      await failTimes(t.app, 9, user, ip);
      assert.equal((await login(t.app, user, PASSWORD, { ip })).statusCode, 200);
      await failTimes(t.app, 10, user, ip);
      assertLocked(await login(t.app, user, PASSWORD, { ip }));
    });

    test("a disabled user's attempts count too", async () => {
      const user = email('disabled');
      await createUser(t, { email: user, password: PASSWORD });
      assert.equal((await t.request({ method: 'PUT', url: `/api/resource/User/${user}`, body: { enabled: 0 } })).statusCode, 200);
      const ip = freshIp();
      for (let i = 0; i < 10; i++) assertV1Error(await login(t.app, user, PASSWORD, { ip }), 401, 'AuthenticationError');
      assertLocked(await login(t.app, user, PASSWORD, { ip }));
    });

    test('parallel guesses never get past the limit together', async () => {
      const user = email('burst');
      await createUser(t, { email: user, password: PASSWORD });
      const ip = freshIp();
      const answers = await Promise.all(Array.from({ length: 20 }, () => login(t.app, user, 'wrong-password', { ip })));
      const statuses = answers.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(10).fill(429)]);
    });

    test('the legacy cmd=login at the root is throttled as well', async () => {
      const user = email('legacy');
      await createUser(t, { email: user, password: PASSWORD });
      const ip = freshIp();
      await failTimes(t.app, 10, user, ip);
      const res = await t.app.inject({ method: 'POST', url: '/', payload: { cmd: 'login', usr: user, pwd: PASSWORD }, remoteAddress: ip });
      assertLocked(res);
    });

    test('without a trusted proxy X-Forwarded-For is ignored, so changing it does not evade the lock', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) {
        const res = await login(t.app, email('spoof'), 'wrong-password', { ip, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
        assertV1Error(res, 401, 'AuthenticationError');
      }
      assertLocked(await login(t.app, email('spoof'), 'wrong-password', { ip, headers: { 'x-forwarded-for': '198.51.100.200' } }));
    });
  });

  describe(`login throttling with other settings (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    /**
     * Ten failures from `client` (as the trusted proxies report it), each with another first hop the
     * client wrote itself, lock `client`; another client behind the same proxies is not locked.
     */
    async function lockThroughProxies(config: unknown, proxy: string, chain: (spoofed: string, client: string) => string, client: string, neighbour: string) {
      const view = await reopenWithConfig(t, { trust_proxy: config });
      try {
        const attempt = (spoofed: string, who: string) =>
          login(view.app, email('ghost'), 'wrong-password', { ip: proxy, headers: { 'x-forwarded-for': chain(spoofed, who) } });
        for (let i = 0; i < 10; i++) assertV1Error(await attempt(`198.51.100.${i}`, client), 401, 'AuthenticationError');
        assertLocked(await attempt('198.51.100.99', client));
        assertV1Error(await attempt('198.51.100.99', neighbour), 401, 'AuthenticationError');
      } finally {
        await view.close();
      }
    }

    test('behind one trusted proxy (trust_proxy 1, or true) the client is the address that proxy appended, not a hop it wrote', async () => {
      await lockThroughProxies(1, freshIp(), (spoofed, client) => `${spoofed}, ${client}`, '203.0.113.50', '203.0.113.51');
      await lockThroughProxies(true, freshIp(), (spoofed, client) => `${spoofed}, ${client}`, '203.0.113.52', '203.0.113.53');
    });

    test('behind two trusted proxies (trust_proxy 2) the client is the address the outer proxy appended', async () => {
      await lockThroughProxies(2, freshIp(), (spoofed, client) => `${spoofed}, ${client}, 10.200.0.1`, '203.0.113.54', '203.0.113.55');
    });

    test("trust_proxy as addresses believes only those proxies: a direct client's X-Forwarded-For is ignored", async () => {
      await lockThroughProxies(
        ['10.201.0.0/16', '10.202.0.7'],
        '10.202.0.7',
        (spoofed, client) => `${spoofed}, ${client}, 10.201.3.4`,
        '203.0.113.56',
        '203.0.113.57',
      );
      const view = await reopenWithConfig(t, { trust_proxy: ['10.201.0.0/16'] });
      try {
        const direct = '192.0.2.77';
        for (let i = 0; i < 10; i++) {
          const res = await login(view.app, email('ghost'), 'wrong-password', { ip: direct, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
          assertV1Error(res, 401, 'AuthenticationError');
        }
        assertLocked(await login(view.app, email('ghost'), 'wrong-password', { ip: direct, headers: { 'x-forwarded-for': '198.51.100.200' } }));
      } finally {
        await view.close();
      }
    });

    test('allow_consecutive_login_attempts 0 turns the throttle off', async () => {
      const user = email('unlimited');
      await createUser(t, { email: user, password: PASSWORD });
      const view = await reopenWithConfig(t, { allow_consecutive_login_attempts: 0 });
      try {
        const ip = freshIp();
        await failTimes(view.app, 15, user, ip);
        assert.equal((await login(view.app, user, PASSWORD, { ip })).statusCode, 200);
      } finally {
        await view.close();
      }
    });

    test('the lock lifts once the window from the first failure has passed', async () => {
      const user = email('window');
      await createUser(t, { email: user, password: PASSWORD });
      const windowMs = 4_000;
      const view = await reopenWithConfig(t, { allow_consecutive_login_attempts: 3, allow_login_after_fail: windowMs / 1000 });
      try {
        const ip = freshIp();
        // The window runs from the first failure: wait for its end, however long the failures took
        // on a busy machine, rather than a fixed time after them.
        const firstFailure = Date.now();
        await failTimes(view.app, 3, user, ip);
        assertLocked(await login(view.app, user, PASSWORD, { ip }));
        await sleep(Math.max(0, firstFailure + windowMs + 200 - Date.now()));
        assert.equal((await login(view.app, user, PASSWORD, { ip })).statusCode, 200);
      } finally {
        await view.close();
      }
    });
  });
}
