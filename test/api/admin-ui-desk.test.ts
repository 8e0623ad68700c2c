import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaultUiDir } from '../../src/http/admin-ui.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * What the admin UI reads besides documents (docs/admin-ui.md): `fw.desk.boot` lists the DocTypes
 * a caller may read with their rights, `fw.desk.form.load.getdoctype` answers one DocType's
 * metadata without the fields above the caller's permlevels. Neither shows more than the resource
 * API would. And the page itself: served with the app, switched off by `admin_ui: false`.
 */

for (const dialect of testDialects()) {
  describe(`admin UI metadata and page (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Desk Clerk');
      clerk = await createUser(t, 'desk-clerk@example.com', { roles: ['Desk Clerk'] });
      await createDocType(t, {
        name: 'Desk Line',
        istable: 1,
        fields: [
          { fieldname: 'item', fieldtype: 'Data' },
          { fieldname: 'cost', fieldtype: 'Currency', permlevel: 1 },
        ],
      });
      await createDocType(t, {
        name: 'Desk Memo',
        module: 'Office',
        is_submittable: 1,
        fields: [
          { fieldname: 'title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'salary', fieldtype: 'Currency', permlevel: 1 },
          { fieldname: 'lines', fieldtype: 'Table', options: 'Desk Line' },
        ],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, submit: 1, cancel: 1, amend: 1 },
          { role: 'System Manager', permlevel: 1, read: 1, write: 1, create: 0, delete: 0 },
          { role: 'Desk Clerk', read: 1, write: 0, create: 0, delete: 0 },
        ],
      });
      await createDocType(t, { name: 'Desk Secret', fields: [{ fieldname: 'code', fieldtype: 'Data' }] });
    });
    after(() => t.close());

    test('boot lists every DocType for the Administrator, child tables left out', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/fw.desk.boot' });
      assert.equal(res.statusCode, 200, res.body);
      const boot = res.json().message as Json;
      assert.equal(boot.user, 'Administrator');
      assert.equal(boot.is_system_manager, true);
      const names = (boot.doctypes as Json[]).map((d) => d.name);
      for (const n of ['Desk Memo', 'Desk Secret', 'DocType', 'User', 'ToDo']) assert.ok(names.includes(n), n);
      assert.ok(!names.includes('Desk Line'));
      assert.ok(!names.includes('DocField'));
      const memo = (boot.doctypes as Json[]).find((d) => d.name === 'Desk Memo')!;
      assert.equal(memo.module, 'Office');
      assert.equal(memo.is_submittable, 1);
      assert.equal(memo.rights.submit, true);
    });

    test('boot shows a user only the DocTypes they may read, with their rights', async () => {
      const res = await actAs(t, clerk, { method: 'GET', url: '/api/method/fw.desk.boot' });
      assert.equal(res.statusCode, 200, res.body);
      const boot = res.json().message as Json;
      assert.equal(boot.user, clerk.name);
      assert.equal(boot.is_system_manager, false);
      const names = (boot.doctypes as Json[]).map((d) => d.name);
      assert.ok(names.includes('Desk Memo'));
      for (const hidden of ['Desk Secret', 'DocType', 'Role', 'System Settings']) assert.ok(!names.includes(hidden), hidden);
      const memo = (boot.doctypes as Json[]).find((d) => d.name === 'Desk Memo')!;
      assert.deepEqual([memo.rights.read, memo.rights.write, memo.rights.create, memo.rights.delete, memo.rights.submit], [true, false, false, false, false]);
    });

    test('Guest gets 403 from both methods', async () => {
      assertError(await actAs(t, undefined, { method: 'GET', url: '/api/method/fw.desk.boot' }), 403, 'PermissionError');
      assertError(await actAs(t, undefined, { method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=ToDo' }), 403, 'PermissionError');
    });

    test('getdoctype answers the DocType and its child tables under docs', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/frappe.desk.form.load.getdoctype?doctype=Desk%20Memo' });
      assert.equal(res.statusCode, 200, res.body);
      const docs = res.json().docs as Json[];
      assert.deepEqual(
        docs.map((d) => d.name),
        ['Desk Memo', 'Desk Line'],
      );
      assert.deepEqual(
        (docs[0].fields as Json[]).map((f) => f.fieldname),
        ['title', 'salary', 'lines', 'amended_from'],
      );
      assert.equal(docs[0].__rights.write, true);
      assert.ok([0, 1].every((l) => (docs[0].__rights.write_levels as number[]).includes(l)));
      assert.deepEqual(
        (docs[1].fields as Json[]).map((f) => f.fieldname),
        ['item', 'cost'],
      );
    });

    test('getdoctype leaves out fields above the levels a user may read', async () => {
      const res = await actAs(t, clerk, { method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=Desk%20Memo' });
      assert.equal(res.statusCode, 200, res.body);
      const docs = res.json().docs as Json[];
      const fields = (docs[0].fields as Json[]).map((f) => f.fieldname);
      assert.ok(!fields.includes('salary'));
      assert.ok(fields.includes('title'));
      assert.deepEqual(
        (docs[1].fields as Json[]).map((f) => f.fieldname),
        ['item'],
      );
      assert.equal(docs[0].__rights.read, true);
      assert.equal(docs[0].__rights.write, false);
      assert.deepEqual(docs[0].__rights.write_levels, []);
    });

    test('getdoctype refuses what the user may not read, child tables directly and unknown names', async () => {
      assertError(await actAs(t, clerk, { method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=Desk%20Secret' }), 403, 'PermissionError');
      assertError(await actAs(t, clerk, { method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=DocType' }), 403, 'PermissionError');
      assertError(await t.request({ method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=Desk%20Line' }), 403, 'PermissionError');
      assertError(await t.request({ method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype?doctype=No%20Such' }), 404, 'DoesNotExistError');
      assertError(await t.request({ method: 'GET', url: '/api/method/fw.desk.form.load.getdoctype' }), 417, 'FrappeTypeError');
      assertError(await t.request({ method: 'POST', url: '/api/method/fw.desk.boot', body: {} }), 403, 'PermissionError');
    });

    test('the page is served at /app with its CSP, and its scripts are files, never inline', {
      skip: existsSync(join(defaultUiDir(), 'index.html')) ? false : 'UI not built',
    }, async () => {
      const res = await t.request({ method: 'GET', url: '/app/desk-memo', anonymous: true });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
      const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      assert.ok(scripts.length > 0);
      for (const [, attrs, body] of scripts) {
        assert.match(attrs, /\bsrc="\/assets\/[\w.-]+-[\w-]{8}\.js"/);
        assert.equal(body.trim(), '');
      }
      // The shell: the entry script and the modules it preloads, under 250 KB as sent (gzipped).
      let shellBytes = 0;
      for (const [, url] of res.body.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)) {
        const js = await t.request({ method: 'GET', url, anonymous: true, headers: { 'accept-encoding': 'gzip' } });
        assert.equal(js.statusCode, 200);
        assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
        shellBytes += js.rawPayload.length;
      }
      assert.ok(shellBytes > 0 && shellBytes < 250 * 1024, `shell is ${shellBytes} bytes gzipped`);
    });

    test('admin_ui: false in site_config.json turns the UI off, the API stays', async () => {
      const off = await reopenWithConfig(t, { admin_ui: false });
      try {
        const page = await off.app.inject({ method: 'GET', url: '/app' });
        assert.equal(page.statusCode, 404);
        assert.equal(page.json().exc_type, 'DoesNotExistError');
        assert.equal((await off.app.inject({ method: 'GET', url: '/login' })).statusCode, 404);
        assert.equal((await off.app.inject({ method: 'GET', url: '/api/method/ping' })).statusCode, 200);
      } finally {
        await off.close();
      }
    });
  });
}
