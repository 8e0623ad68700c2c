import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, insertDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Principals (roles, enabled flag, User Permissions) are cached for up to a second per process.
 * A change made through this process applies to the very next request; a change this process did
 * not make (another worker, a CLI command) applies within about a second (API.md "Pinned details").
 */

const MEMO = 'Freshness Memo';
const REGION = 'Freshness Region';
/** A little more than the principal cache's TTL. */
const TTL_PASSED_MS = 1200;

for (const dialect of testDialects()) {
  describe(`principal freshness (${dialect.name})`, () => {
    let t: TestSite;
    let reader: ActingUser;
    const readMemos = () => actAs(t, reader, { method: 'GET', url: resourceUrl(MEMO) + query({ fields: ['name', 'region'], limit_page_length: 0 }) });
    const setEnabledBehindTheCache = (enabled: 0 | 1) =>
      t.site.db.transaction((q) => q.run(t.site.db.dialect.builder.updateTable('tabUser').set({ enabled }).where('name', '=', reader.name).compile()));

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Memo Reader');
      await createDocType(t, {
        name: REGION,
        autoname: 'field:code',
        fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'Memo Reader', write: 0, create: 0, delete: 0 }],
      });
      await createDocType(t, {
        name: MEMO,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'region', label: 'Region', fieldtype: 'Link', options: REGION },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Memo Reader', write: 0, create: 0, delete: 0 }],
      });
      for (const code of ['North', 'South']) await insertDoc(t, REGION, { code });
      await insertDoc(t, MEMO, { title: 'up north', region: 'North' });
      await insertDoc(t, MEMO, { title: 'down south', region: 'South' });
      reader = await createUser(t, 'memo-reader@example.com', { roles: ['Memo Reader'] });
    });
    after(() => t.close());

    test('a role taken away through the API applies to the very next request', async () => {
      assert.equal(dataOf(await readMemos()).length, 2);
      const res = await t.request({ method: 'PUT', url: `/api/resource/User/${reader.name}`, body: { roles: [] } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await readMemos()).statusCode, 403);
      const back = await t.request({ method: 'PUT', url: `/api/resource/User/${reader.name}`, body: { roles: [{ role: 'Memo Reader' }] } });
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(dataOf(await readMemos()).length, 2);
    });

    test('a User Permission made through the API restricts the very next list', async () => {
      assert.equal(dataOf(await readMemos()).length, 2);
      const rule = dataOf(
        await t.request({ method: 'POST', url: resourceUrl('User Permission'), body: { user: reader.name, allow: REGION, for_value: 'North' } }),
      );
      assert.deepEqual(
        (dataOf(await readMemos()) as unknown as Json[]).map((m) => m.region),
        ['North'],
      );
      assert.equal((await t.request({ method: 'DELETE', url: resourceUrl('User Permission', String(rule.name)) })).statusCode, 202);
      assert.equal(dataOf(await readMemos()).length, 2);
    });

    test('a user disabled behind this process’s back loses access within about a second', async () => {
      assert.equal((await readMemos()).statusCode, 200);
      await setEnabledBehindTheCache(0);
      try {
        await sleep(TTL_PASSED_MS);
        const refused = await readMemos();
        assert.equal(refused.statusCode, 401, refused.body);
        assert.equal(refused.json().exc_type, 'AuthenticationError');
      } finally {
        await setEnabledBehindTheCache(1);
      }
      // Missing and disabled users are never cached: enabling works at once.
      assert.equal((await readMemos()).statusCode, 200);
    });

    test('a client that never pauses loses access within about a second too: renewing a cached entry never extends it', async () => {
      // The caches renew an entry in use before it expires, a renewal that finds the user disabled
      // ends it (docs/benchmarks.md "PostgreSQL latency at 50 connections").
      assert.equal((await readMemos()).statusCode, 200);
      await setEnabledBehindTheCache(0);
      const changed = Date.now();
      try {
        let status = 200;
        while (status === 200 && Date.now() - changed < 5_000) {
          status = (await readMemos()).statusCode;
          await sleep(10);
        }
        assert.equal(status, 401);
        assert.ok(Date.now() - changed < 2_500, `refused only after ${Date.now() - changed} ms`);
      } finally {
        await setEnabledBehindTheCache(1);
      }
      assert.equal((await readMemos()).statusCode, 200);
    });
  });
}
