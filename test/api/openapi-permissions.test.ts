import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { fetchDescription } from '../helpers/openapi-check.js';
import { createRole, createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const NOTE = 'Audit Note';
const SECRET = 'Secret Ledger';

for (const dialect of testDialects()) {
  describe(`OpenAPI description follows the caller's permissions (${dialect.name})`, () => {
    let t: TestSite;
    let reader: ActingUser;
    let auditor: ActingUser;
    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Note Reader');
      await createRole(t, 'Note Auditor');
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: NOTE,
            fields: [
              { fieldname: 'title', fieldtype: 'Data' },
              { fieldname: 'verdict', fieldtype: 'Small Text', permlevel: 1 },
            ],
            permissions: [
              { role: 'Note Reader', read: 1, write: 0, create: 0, delete: 0 },
              { role: 'Note Auditor', read: 1, write: 1, create: 1, delete: 0 },
              { role: 'Note Auditor', permlevel: 1, read: 1, write: 1 },
            ],
          },
        }),
      );
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: { name: SECRET, fields: [{ fieldname: 'amount', fieldtype: 'Currency' }], permissions: [{ role: 'System Manager' }] },
        }),
      );
      dataOf(
        await t.request({
          method: 'POST',
          url: '/api/resource/DocType',
          body: {
            name: 'Drop Box',
            fields: [{ fieldname: 'note', fieldtype: 'Data' }],
            permissions: [{ role: 'Note Reader', read: 0, write: 0, create: 1, delete: 0 }],
          },
        }),
      );
      reader = await createUser(t, 'oa-reader@example.com', { roles: ['Note Reader'] });
      auditor = await createUser(t, 'oa-auditor@example.com', { roles: ['Note Auditor'] });
    });
    after(() => t.close());

    test('DocTypes the caller cannot use and fields above their permlevel are absent', async () => {
      const spec = await fetchDescription(t, reader.auth);
      const note = `/api/resource/${encodeURIComponent(NOTE)}`;
      assert.deepEqual(Object.keys(spec.paths[note]), ['get'], 'read only: no insert');
      assert.deepEqual(Object.keys(spec.paths[`${note}/{name}`]), ['get'], 'read only: no update or delete');
      assert.equal(spec.paths[`/api/resource/${encodeURIComponent(SECRET)}`], undefined);
      assert.equal(spec.components.schemas.SecretLedger, undefined);
      assert.equal(spec.components.schemas.DropBox, undefined, 'a DocType the caller may only create into is not readable, so absent');
      assert.equal(spec.components.schemas.User, undefined, 'built-in DocTypes the user cannot read are absent too');
      assert.ok(spec.components.schemas.AuditNote.properties.title);
      assert.equal(spec.components.schemas.AuditNote.properties.verdict, undefined, 'permlevel 1 is hidden');
      assert.ok(!JSON.stringify(spec).includes(SECRET), 'nothing names the secret DocType');
      const valid = await validate(structuredClone(spec) as never);
      assert.ok(valid.valid, `a narrowed description is still valid: ${JSON.stringify(valid).slice(0, 2000)}`);

      const full = await fetchDescription(t, auditor.auth);
      assert.deepEqual(Object.keys(full.paths[note]).sort(), ['get', 'post']);
      assert.ok(full.components.schemas.AuditNote.properties.verdict);
      assert.ok(full.components.schemas.AuditNoteCreate.properties.verdict);

      const admin = await fetchDescription(t);
      assert.ok(admin.components.schemas.SecretLedger);
      assert.ok(admin.paths['/api/method/fw.client.get_list']);
    });

    test('Guest sees only guest methods and no DocType', async () => {
      const spec = await fetchDescription(t, '');
      assert.ok(spec.paths['/api/method/login']);
      assert.equal(spec.paths['/api/method/fw.client.get_list'], undefined);
      assert.equal(spec.paths[`/api/resource/${encodeURIComponent(NOTE)}`], undefined);
      assert.deepEqual(spec.paths['/api/method/login'].post.security[0], {}, 'login needs no credentials');
      const text = JSON.stringify(spec);
      assert.ok(!text.includes(NOTE) && !text.includes(SECRET), 'no DocType of the site is named to Guest');
    });

    test('users with the same roles share one description, which names none of them', async () => {
      const twin = await createUser(t, 'oa-twin@example.com', { roles: ['Note Reader'] });
      const first = await t.request({ method: 'GET', url: '/api/openapi.json', anonymous: true, headers: { authorization: reader.auth } });
      const second = await t.request({ method: 'GET', url: '/api/openapi.json', anonymous: true, headers: { authorization: twin.auth } });
      assert.equal(second.headers.etag, first.headers.etag);
      for (const user of [reader.name, twin.name]) assert.ok(!second.body.includes(user), `${user} is not named`);
    });

    test('answers carry an ETag per role set; If-None-Match gives 304; a DocType change gives a new one', async () => {
      const get = (auth: string, etag?: string) =>
        t.request({ method: 'GET', url: '/api/openapi.json', anonymous: true, headers: { authorization: auth, ...(etag ? { 'if-none-match': etag } : {}) } });
      const first = await get(reader.auth);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(first.headers['cache-control'], 'private, no-cache');
      assert.match(String(first.headers.vary), /Authorization/);
      assert.equal((await get(reader.auth)).headers.etag, etag, 'the same description, the same tag');
      const again = await get(reader.auth, etag);
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal((await get(reader.auth, `W/${etag}, "other"`)).statusCode, 304);
      assert.notEqual((await get(auditor.auth)).headers.etag, etag, 'another role set, another description');

      const doctype = dataOf(await t.request({ method: 'GET', url: `/api/resource/DocType/${encodeURIComponent(NOTE)}` }));
      dataOf(
        await t.request({
          method: 'PUT',
          url: `/api/resource/DocType/${encodeURIComponent(NOTE)}`,
          body: { fields: [...doctype.fields, { fieldname: 'pages', fieldtype: 'Int' }] },
        }),
      );
      const changed = await get(reader.auth, etag);
      assert.equal(changed.statusCode, 200, 'a changed DocType is a changed description');
      assert.ok(changed.json().components.schemas.AuditNote.properties.pages);
    });

    test('?doctype= narrows the description to one DocType', async () => {
      const spec = await fetchDescription(t, reader.auth, `?doctype=${encodeURIComponent(NOTE)}`);
      const paths = Object.keys(spec.paths);
      assert.ok(
        paths.every((p) => p.includes(`/${encodeURIComponent(NOTE)}`)),
        paths.join(', '),
      );
      for (const path of [
        `/api/resource/${encodeURIComponent(NOTE)}`,
        `/api/v2/document/${encodeURIComponent(NOTE)}/{name}`,
        `/api/v2/doctype/${encodeURIComponent(NOTE)}/count`,
      ]) {
        assert.ok(paths.includes(path), path);
      }
      assert.ok(!paths.some((p) => p.endsWith('/bulk_delete')), 'the reader may not delete');
      assert.ok(spec.components.schemas.AuditNote);
      assert.equal(spec.components.schemas.ToDo, undefined);
      const refused = await t.request({
        method: 'GET',
        url: `/api/openapi.json?doctype=${encodeURIComponent(SECRET)}`,
        anonymous: true,
        headers: { authorization: reader.auth },
      });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().exc_type, 'PermissionError');
      const missing = await t.request({ method: 'GET', url: '/api/openapi.json?doctype=Nope%20Nothing' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().exc_type, 'DoesNotExistError');
    });
  });
}
