import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables } from '../../test/helpers/auth-test-database.js';
import { SESSIONS_TABLE } from './auth-tables.js';
import { SessionStore } from './sessions.js';

const DAY = 24 * 3600;
const expiry = { expirySeconds: DAY };

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`SessionStore on ${dialect.name}`, () => {
    let t: TestDatabase;
    let now: number;
    let store: SessionStore;
    const start = (user: string) => t.db.transaction((q) => store.create(q, { user, ip: '203.0.113.9', userAgent: 'test', ...expiry }));
    const lookup = (sid: string, e = expiry) => t.db.read((q) => store.lookup(q, sid, e));
    const resolve = (sid: string) => t.db.transaction((q) => store.resolve(q, sid, expiry));
    const storedTimes = async (sid: string) => {
      const rows = await t.db.read((q) =>
        q.all<{ last_updated: number; expires_at: number }>(
          t.db.dialect.builder.selectFrom(SESSIONS_TABLE).select(['last_updated', 'expires_at']).where('sid', '=', sid).compile(),
        ),
      );
      return rows[0];
    };

    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
    });
    beforeEach(() => {
      now = 1_700_000_000_000;
      store = new SessionStore(t.db.dialect, { clock: () => now });
    });
    after(() => t.drop());

    test('a created session has a 56-hex sid and resolves to its user', async () => {
      const { sid, expiresAt } = await start('jane@example.com');
      assert.match(sid, /^[0-9a-f]{56}$/);
      assert.equal(expiresAt, now + DAY * 1000);
      assert.deepEqual(await resolve(sid), { user: 'jane@example.com', sid, csrfToken: null });
    });

    test('unknown and malformed sids resolve to nobody', async () => {
      assert.equal(await resolve('0'.repeat(56)), undefined);
      assert.equal(await resolve('Guest'), undefined);
      assert.equal(await resolve(''), undefined);
      const { sid } = await start('jane@example.com');
      assert.equal(await resolve(sid.toUpperCase()), undefined);
      assert.equal(await resolve(`${sid}0`), undefined);
    });

    test('a session idle past its expiry resolves to nobody', async () => {
      const { sid } = await start('jane@example.com');
      now += DAY * 1000 - 1;
      assert.equal((await lookup(sid))?.user, 'jane@example.com');
      now += 1;
      assert.equal(await lookup(sid), undefined);
    });

    test('a shorter expiry setting ends sessions idle for longer than it', async () => {
      const { sid } = await start('jane@example.com');
      now += 3600 * 1000;
      assert.equal(await lookup(sid, { expirySeconds: 3600 }), undefined);
      assert.equal((await lookup(sid))?.user, 'jane@example.com');
    });

    test('use slides the expiry, written at most once a minute', async () => {
      const { sid } = await start('jane@example.com');
      now += 30_000;
      assert.equal((await lookup(sid))?.refreshDue, false);
      await resolve(sid);
      assert.deepEqual(await storedTimes(sid), { last_updated: now - 30_000, expires_at: now - 30_000 + DAY * 1000 });

      now += 30_000;
      assert.equal((await lookup(sid))?.refreshDue, true);
      await resolve(sid);
      assert.deepEqual(await storedTimes(sid), { last_updated: now, expires_at: now + DAY * 1000 });

      // Past the original expiry, alive thanks to the refresh.
      now += DAY * 1000 - 1;
      assert.deepEqual(await resolve(sid), { user: 'jane@example.com', sid, csrfToken: null });
    });

    test('resolveIn refreshes through its own transaction only when due', async () => {
      const { sid } = await start('jane@example.com');
      now += 60_000;
      assert.deepEqual(await store.resolveIn(t.db, sid, expiry), { user: 'jane@example.com', sid, csrfToken: null });
      assert.equal((await storedTimes(sid)).last_updated, now);
    });

    test('refresh never revives an expired session', async () => {
      const { sid } = await start('jane@example.com');
      now += DAY * 1000;
      assert.equal(await t.db.transaction((q) => store.refresh(q, sid, expiry)), undefined);
      assert.equal(await lookup(sid), undefined);
    });

    test('a destroyed session resolves to nobody and other sessions live on', async () => {
      const a = await start('jane@example.com');
      const b = await start('jane@example.com');
      await t.db.transaction((q) => store.destroy(q, a.sid));
      assert.equal(await resolve(a.sid), undefined);
      assert.equal((await resolve(b.sid))?.user, 'jane@example.com');
    });

    test("destroyAllForUser ends every session of the user except the one named, and nobody else's", async () => {
      const keep = await start('amy@example.com');
      const end1 = await start('amy@example.com');
      const end2 = await start('amy@example.com');
      const other = await start('zed@example.com');
      const ended = await t.db.transaction((q) => store.destroyAllForUser(q, 'amy@example.com', { except: keep.sid }));
      assert.equal(ended, 2);
      assert.equal(await resolve(end1.sid), undefined);
      assert.equal(await resolve(end2.sid), undefined);
      assert.equal((await resolve(keep.sid))?.user, 'amy@example.com');
      assert.equal((await resolve(other.sid))?.user, 'zed@example.com');
      assert.equal(await t.db.transaction((q) => store.destroyAllForUser(q, 'amy@example.com')), 1);
      assert.equal(await resolve(keep.sid), undefined);
    });

    test('purgeExpired deletes only expired sessions', async () => {
      // Sessions of earlier tests all end within days of the shared start; clear them first.
      now += 10 * DAY * 1000;
      await t.db.transaction((q) => store.purgeExpired(q));
      const old = await start('old@example.com');
      now += DAY * 1000;
      const fresh = await start('new@example.com');
      assert.equal(await t.db.transaction((q) => store.purgeExpired(q)), 1);
      assert.equal(await storedTimes(old.sid), undefined);
      assert.equal((await resolve(fresh.sid))?.user, 'new@example.com');
    });
  });
}
