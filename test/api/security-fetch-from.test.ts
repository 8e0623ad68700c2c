import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * docs/security.md "Fetched values": a `fetch_from` copy is a read made for the caller, so a linked
 * document they may not read (if_owner of another user) gives them nothing, and a source field above
 * their permlevel is not copied; the attack is linking to someone else's document to read it back.
 */

const SECRET = 'Sec Fetch Secret';
const COPY = 'Sec Fetch Copy';
const ROLE = 'Sec Fetch Keeper';

for (const dialect of testDialects()) {
  describe(`fetch_from copies only what the caller may read (${dialect.name})`, () => {
    let t: TestSite;
    let alice: ActingUser;
    let bob: ActingUser;
    let aliceSecret: string;
    let bobSecret: string;

    const insertCopy = async (user: ActingUser, body: Json) => dataOf(await actAs(t, user, { method: 'POST', url: resourceUrl(COPY), body })) as Json;
    const stored = async (name: string) => dataOf(await t.request({ method: 'GET', url: resourceUrl(COPY, name) })) as Json;

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, ROLE);
      await createDocType(t, {
        name: SECRET,
        fields: [
          { fieldname: 'content', label: 'Content', fieldtype: 'Data' },
          { fieldname: 'salary', label: 'Salary', fieldtype: 'Data', permlevel: 1 },
        ],
        permissions: [{ role: 'System Manager' }, { role: ROLE, if_owner: 1, read: 1, write: 1, create: 1 }],
      });
      await createDocType(t, {
        name: COPY,
        fields: [
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Link', options: SECRET },
          { fieldname: 'content', label: 'Content', fieldtype: 'Data', fetch_from: 'secret.content', read_only: 1 },
          { fieldname: 'salary', label: 'Salary', fieldtype: 'Data', fetch_from: 'secret.salary', read_only: 1 },
        ],
        permissions: [{ role: 'System Manager' }, { role: ROLE, if_owner: 1, read: 1, write: 1, create: 1 }],
      });
      alice = await createUser(t, 'fetch-alice@example.com', { roles: [ROLE] });
      bob = await createUser(t, 'fetch-bob@example.com', { roles: [ROLE] });
      // The Administrator fills the level-1 field, which neither user may read.
      aliceSecret = dataOf(await actAs(t, alice, { method: 'POST', url: resourceUrl(SECRET), body: { content: 'alpha' } })).name;
      bobSecret = dataOf(await actAs(t, bob, { method: 'POST', url: resourceUrl(SECRET), body: { content: 'bravo' } })).name;
      for (const [name, salary] of [
        [aliceSecret, 'A-100'],
        [bobSecret, 'B-200'],
      ]) {
        dataOf(await t.request({ method: 'PUT', url: resourceUrl(SECRET, name), body: { salary } }));
      }
    });
    after(() => t.close());

    test("linking to another user's if_owner document copies nothing from it", async () => {
      const copy = await insertCopy(bob, { secret: aliceSecret });
      assert.equal(copy.content ?? null, null);
      assert.equal((await stored(copy.name as string)).content ?? null, null, 'nothing was stored either');
    });

    test('a value the client claims for a fetched field is not kept when the link is unreadable', async () => {
      const copy = await insertCopy(bob, { secret: aliceSecret, content: 'forged' });
      assert.equal((await stored(copy.name as string)).content ?? null, null);
    });

    test('changing the link to an unreadable document on save copies nothing', async () => {
      const copy = await insertCopy(bob, { secret: bobSecret });
      assert.equal(copy.content, 'bravo');
      dataOf(await actAs(t, bob, { method: 'PUT', url: resourceUrl(COPY, copy.name as string), body: { secret: aliceSecret } }));
      assert.equal((await stored(copy.name as string)).content ?? null, null);
    });

    test("one's own document is copied, but not its fields above one's permlevel", async () => {
      const copy = await insertCopy(alice, { secret: aliceSecret });
      assert.equal(copy.content, 'alpha');
      const full = await stored(copy.name as string);
      assert.equal(full.content, 'alpha');
      assert.equal(full.salary ?? null, null, 'the level-1 source field stayed behind');
    });

    test('the Administrator copies every field', async () => {
      const copy = dataOf(await t.request({ method: 'POST', url: resourceUrl(COPY), body: { secret: aliceSecret } })) as Json;
      assert.equal(copy.content, 'alpha');
      assert.equal(copy.salary, 'A-100');
    });
  });
}
