import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Issue 28, item 8 (docs/security.md "What answers tell", docs/api.md "API v2"): the API description lists
 * only methods the caller may call; DocType metadata is answered only for DocTypes the caller may
 * read, without fields above their permlevels; a Password field's mask tells nothing of its length.
 */

const JOBS = 'fw.core.background_job.get_jobs';
const RESTORE = 'fw.core.doctype.deleted_document.deleted_document.restore';

for (const dialect of testDialects()) {
  describe(`answers tell no more than the caller may know (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let manager: ActingUser;
    const LEDGER = uniqueDocTypeName('Info Ledger');
    const LINE = uniqueDocTypeName('Info Line');
    const HIDDEN = uniqueDocTypeName('Info Hidden');
    const VAULT = uniqueDocTypeName('Info Vault');

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Info Clerk');
      await createRole(t, 'Info Auditor');
      clerk = await createUser(t, `info-clerk-${Date.now()}@example.com`, { roles: ['Info Clerk'] });
      manager = await createUser(t, `info-manager-${Date.now()}@example.com`, { roles: ['System Manager'] });
      await createDocType(t, {
        name: LINE,
        istable: 1,
        fields: [
          { fieldname: 'item', fieldtype: 'Data' },
          { fieldname: 'cost_price', fieldtype: 'Currency', permlevel: 1 },
        ],
      });
      await createDocType(t, {
        name: LEDGER,
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'margin', fieldtype: 'Float', permlevel: 1 },
          { fieldname: 'lines', fieldtype: 'Table', options: LINE },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Info Clerk', read: 1 }, { role: 'Info Auditor', read: 1, permlevel: 1 }],
      });
      await createDocType(t, { name: HIDDEN, fields: [{ fieldname: 'plan', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: VAULT,
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'secret', fieldtype: 'Password' },
        ],
      });
    });
    after(() => t.close());

    const meta = (who: ActingUser | undefined, doctype: string) => actAs(t, who, { method: 'GET', url: `/api/v2/doctype/${encodeURIComponent(doctype)}/meta` });
    const fieldnames = (def: Json) => (def.fields as Json[]).map((f) => f.fieldname);

    describe('DocType metadata', () => {
      test('a DocType the caller may not read is 403, an unknown one 404, as for its documents', async () => {
        assertV2Error(await meta(clerk, HIDDEN), 403, 'PermissionError');
        assertV2Error(await meta(clerk, 'No Such DocType Here'), 404, 'DoesNotExistError');
        assertV2Error(await meta(clerk, 'DocType'), 403, 'PermissionError');
        assertV2Error(await meta(undefined, LEDGER), 403, 'PermissionError');
      });

      test('fields above the permlevels the caller may read are left out, in child DocTypes too', async () => {
        assert.deepEqual(fieldnames(dataOf(await meta(clerk, LEDGER))), ['title', 'lines']);
        assert.deepEqual(fieldnames(dataOf(await meta(clerk, LINE))), ['item']);
        const full = dataOf(await t.request({ method: 'GET', url: `/api/v2/doctype/${encodeURIComponent(LEDGER)}/meta` }));
        assert.deepEqual(fieldnames(full), ['title', 'margin', 'lines']);
        // A System Manager without a level-1 row is no exception; the Administrator is.
        assert.deepEqual(fieldnames(dataOf(await meta(manager, LINE))), ['item']);
        const asAdministrator = await t.request({ method: 'GET', url: `/api/v2/doctype/${encodeURIComponent(LINE)}/meta` });
        assert.deepEqual(fieldnames(dataOf(asAdministrator)), ['item', 'cost_price']);
      });

      test('a child DocType is readable only through a parent the caller may read', async () => {
        const orphanParent = uniqueDocTypeName('Info Secret Parent');
        const orphan = uniqueDocTypeName('Info Secret Row');
        await createDocType(t, { name: orphan, istable: 1, fields: [{ fieldname: 'code', fieldtype: 'Data' }] });
        await createDocType(t, { name: orphanParent, fields: [{ fieldname: 'rows', fieldtype: 'Table', options: orphan }] });
        assertV2Error(await meta(clerk, orphan), 403, 'PermissionError');
        assert.deepEqual(fieldnames(dataOf(await meta(manager, orphan))), ['code']);
      });

      test('a DocType shared with the caller is readable with the shared level-0 fields', async () => {
        const doc = await insertDoc(t, HIDDEN, { plan: 'shared plan' });
        const shared = await t.request({
          method: 'POST',
          url: resourceUrl('DocShare'),
          body: { share_doctype: HIDDEN, share_name: doc.name, user: clerk.name, read: 1 },
        });
        assert.equal(shared.statusCode, 200, shared.body);
        assert.deepEqual(fieldnames(dataOf(await meta(clerk, HIDDEN))), ['plan']);
      });
    });

    describe('methods in the API description and discovery', () => {
      /** The paths of the API description as `who` gets it (the Administrator when 'admin'). */
      const described = async (who: ActingUser | 'admin') => {
        const res =
          who === 'admin' ? await t.request({ method: 'GET', url: '/api/openapi.json' }) : await actAs(t, who, { method: 'GET', url: '/api/openapi.json' });
        assert.equal(res.statusCode, 200, res.body);
        return Object.keys(res.json().paths as Json);
      };
      const discovered = async (who: ActingUser) => {
        const res = await actAs(t, who, { method: 'GET', url: '/api/v2/discovery/method' });
        return (res.json().data.methods as Json[]).map((m) => m.path);
      };

      test('methods reserved to System Managers are listed only for them', async () => {
        for (const path of [JOBS, RESTORE]) {
          assert.ok(!(await described(clerk)).includes(`/api/method/${path}`), `${path} hidden from a clerk`);
          assert.ok(!(await discovered(clerk)).includes(path));
          assert.equal((await actAs(t, clerk, { method: 'GET', url: `/api/v2/discovery/method/${path}` })).statusCode, 404);
          assert.ok((await described(manager)).includes(`/api/method/${path}`), `${path} listed for a manager`);
          assert.ok((await discovered(manager)).includes(path));
          assert.ok((await described('admin')).includes(`/api/method/${path}`), 'and for the Administrator');
        }
        assert.ok((await described(clerk)).includes('/api/method/fw.client.get_list'), 'what anyone may call stays');
      });

      test('calling such a method without the role is 403 before it runs, and changes nothing', async () => {
        const doc = await insertDoc(t, HIDDEN, { plan: 'deleted plan' });
        assert.equal((await t.request({ method: 'DELETE', url: resourceUrl(HIDDEN, doc.name) })).statusCode, 202);
        const archives = dataOf(
          await t.request({
            method: 'GET',
            url: resourceUrl('Deleted Document') + query({ fields: ['name', 'restored'], filters: [['deleted_name', '=', doc.name]] }),
          }),
        ) as Json[];
        assert.equal(archives.length, 1);
        const refused = await actAs(t, clerk, { method: 'POST', url: `/api/method/${RESTORE}`, body: { name: archives[0].name } });
        assertError(refused, 403, 'PermissionError');
        assertError(await actAs(t, clerk, { method: 'GET', url: `/api/method/${JOBS}` }), 403, 'PermissionError');
        assert.equal((await t.request({ method: 'GET', url: resourceUrl(HIDDEN, doc.name) })).statusCode, 404, 'not restored');
        const after = dataOf(await t.request({ method: 'GET', url: resourceUrl('Deleted Document', String(archives[0].name)) }));
        assert.equal(after.restored, 0);
      });
    });

    describe('Password fields', () => {
      test('the mask has the same length whatever the secret, and saving it back keeps the secret', async () => {
        const short = await insertDoc(t, VAULT, { title: 'short', secret: 'abc' });
        const long = await insertDoc(t, VAULT, { title: 'long', secret: 'a much longer secret of many characters 1234567890' });
        assert.equal(short.secret, '********');
        assert.equal(long.secret, '********');
        for (const doc of [short, long]) {
          assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl(VAULT, doc.name) })).secret, '********');
          assert.equal(dataOf(await t.request({ method: 'GET', url: `/api/v2/document/${encodeURIComponent(VAULT)}/${doc.name}` })).secret, '********');
        }
        const resaved = dataOf(await t.request({ method: 'PUT', url: resourceUrl(VAULT, short.name), body: { title: 'short 2', secret: '********' } }));
        assert.equal(resaved.secret, '********');
      });

      test('a mask stored by an older fw, one asterisk per character, is answered as the fixed one', async () => {
        const doc = await insertDoc(t, VAULT, { title: 'old', secret: 'twelve-chars' });
        const b = t.site.db.dialect.builder;
        await t.site.db.transaction((q) =>
          q.run(
            b
              .updateTable(`tab${VAULT}`)
              .set({ secret: '*'.repeat(12) })
              .where('name', '=', String(doc.name))
              .compile(),
          ),
        );
        assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl(VAULT, doc.name) })).secret, '********');
      });
    });
  });
}
