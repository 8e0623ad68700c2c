import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { createRole, createUser } from '../helpers/permission-users.js';

// A second Site on the same folder and database stands for another fw process: metadata checks
// are skipped while nothing was committed, so every commit must still make it look again.
for (const dialect of testDialects()) {
  describe(`metadata changed by another process is seen by the next request (${dialect.name})`, () => {
    let t: TestSite;
    let site: Site;
    let other: FastifyInstance;
    const get = (url: string) => other.inject({ method: 'GET', url, headers: { authorization: t.adminAuth } });

    before(async () => {
      t = await startTestSite(dialect);
      site = await openSite(t.site.paths.root);
      other = await buildApp(site);
    });
    after(async () => {
      await other.close();
      await site.close();
      await t.close();
    });

    test('a DocType created through one process answers at once through the other, after reads warmed it', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await get(resourceUrl('ToDo'))).statusCode, 200);
      const name = uniqueDocTypeName('Fresh');
      await createDocType(t, { name, fields: [{ fieldname: 'title', fieldtype: 'Data' }] });
      const doc = await insertDoc(t, name, { title: 'first' });
      assert.equal(dataOf(await get(resourceUrl(name, doc.name))).title, 'first');
    });

    test('a field added through one process is read and written through the other on the next request', async () => {
      const name = uniqueDocTypeName('Growing');
      await createDocType(t, { name, fields: [{ fieldname: 'title', fieldtype: 'Data' }] });
      const doc = await insertDoc(t, name, { title: 'a' });
      for (let i = 0; i < 3; i++) assert.equal(dataOf(await get(resourceUrl(name, doc.name))).colour, undefined);
      const res = await t.request({
        method: 'PUT',
        url: resourceUrl('DocType', name),
        body: {
          fields: [
            { fieldname: 'title', fieldtype: 'Data' },
            { fieldname: 'colour', fieldtype: 'Data', default: 'blue' },
          ],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const written = await other.inject({ method: 'POST', url: resourceUrl(name), headers: { authorization: t.adminAuth }, payload: { title: 'b' } });
      assert.equal(dataOf(written).colour, 'blue');
      const fields = dataOf(await get(`${resourceUrl(name)}?fields=${encodeURIComponent('["name","colour"]')}&limit_page_length=0`));
      assert.deepEqual(fields.map((r: Json) => r.colour ?? null).sort(), ['blue', null]);
    });

    // On PostgreSQL the metadata check rides with a read's first statement, and a read that
    // began on stale metadata runs again (docs/architecture.md "Read units"): a permission taken
    // away must refuse the very next read, and one given must allow it, even when the refusal
    // is decided before any statement runs.
    test('a read permission withdrawn or given through one process decides the next read through the other', async () => {
      const role = `Fresh Reader ${uniqueDocTypeName('r')}`;
      await createRole(t, role);
      const name = uniqueDocTypeName('Guarded');
      const permissions = (read: number) => [{ role: 'System Manager' }, { role, read, write: 0, create: 0, delete: 0 }];
      await createDocType(t, { name, fields: [{ fieldname: 'title', fieldtype: 'Data' }], permissions: permissions(1) });
      const doc = await insertDoc(t, name, { title: 'kept' });
      const user = await createUser(t, `${role.replace(/\W+/g, '-').toLowerCase()}@example.com`, { roles: [role] });
      const asUser = (url: string) => other.inject({ method: 'GET', url, headers: { authorization: user.auth } });
      const setRead = async (read: number) => {
        const res = await t.request({ method: 'PUT', url: resourceUrl('DocType', name), body: { permissions: permissions(read) } });
        assert.equal(res.statusCode, 200, res.body);
      };

      for (let i = 0; i < 3; i++) assert.equal(dataOf(await asUser(resourceUrl(name, doc.name))).title, 'kept');
      await setRead(0);
      assertError(await asUser(resourceUrl(name, doc.name)), 403, 'PermissionError');
      assertError(await asUser(resourceUrl(name)), 403, 'PermissionError');
      await setRead(1);
      assert.equal(dataOf(await asUser(resourceUrl(name, doc.name))).title, 'kept');
      assert.deepEqual(
        dataOf(await asUser(resourceUrl(name))).map((r: Json) => r.name),
        [doc.name],
      );
    });
  });
}
