import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase, testDialects } from '../../test/helpers/dialects.js';
import { createAuthTestTables, insertTestUser } from '../../test/helpers/auth-test-database.js';
import { GUEST, loadPrincipal } from './principal.js';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

for (const dialect of testDialects()) {
  describe(`principals on ${dialect.name}`, () => {
    let t: TestDatabase;
    const load = (user: string) => t.db.read((q) => loadPrincipal(q, t.db.dialect, user));

    before(async () => {
      t = await openTestDatabase(dialect);
      await createAuthTestTables(t.db);
      await insertTestUser(t.db, { name: 'Administrator', roles: [] });
      await insertTestUser(t.db, { name: 'jane@example.com', roles: ['Sales User', 'Blogger'] });
      await insertTestUser(t.db, { name: 'web@example.com', userType: 'Website User', roles: ['Customer'] });
      await insertTestUser(t.db, { name: 'legacy@example.com', userType: null });
      await insertTestUser(t.db, { name: 'off@example.com', enabled: 0, roles: ['Sales User'] });
    });
    after(() => t.drop());

    test('Guest holds only the Guest role', async () => {
      assert.deepEqual([...GUEST.roles], ['Guest']);
      assert.equal(GUEST.isGuest, true);
      assert.equal(GUEST.isAdministrator, false);
      assert.equal(await load('Guest'), GUEST);
    });

    test('a System User holds their roles plus All, Guest and Desk User', async () => {
      const p = await load('jane@example.com');
      assert.ok(p);
      assert.equal(p.user, 'jane@example.com');
      assert.equal(p.userType, 'System User');
      assert.deepEqual([...p.roles].sort(), ['All', 'Blogger', 'Desk User', 'Guest', 'Sales User']);
      assert.equal(p.isGuest, false);
      assert.equal(p.isAdministrator, false);
    });

    test('a Website User holds their roles plus All and Guest, not Desk User', async () => {
      const p = await load('web@example.com');
      assert.equal(p?.userType, 'Website User');
      assert.deepEqual([...(p?.roles ?? [])].sort(), ['All', 'Customer', 'Guest']);
    });

    test('a user without a user type is a System User', async () => {
      assert.equal((await load('legacy@example.com'))?.userType, 'System User');
    });

    test('the Administrator is flagged and holds Administrator and System Manager', async () => {
      const p = await load('Administrator');
      assert.equal(p?.isAdministrator, true);
      for (const role of ['Administrator', 'System Manager', 'All', 'Guest']) assert.ok(p?.roles.has(role), role);
    });

    test('a disabled or missing user has no principal', async () => {
      assert.equal(await load('off@example.com'), undefined);
      assert.equal(await load('ghost@example.com'), undefined);
    });

    test('roles of other parent types do not leak into a user', async () => {
      await t.db.transaction((q) =>
        q.run(
          t.db.dialect.builder
            .insertInto('tabHas Role')
            .values({ name: 'x1', parent: 'jane@example.com', parenttype: 'User Group', parentfield: 'roles', role: 'Auditor', idx: 1 })
            .compile(),
        ),
      );
      assert.equal((await load('jane@example.com'))?.roles.has('Auditor'), false);
    });
  });
}
