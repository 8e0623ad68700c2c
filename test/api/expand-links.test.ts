import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { assertError, createDocType, dataOf, insertDoc, resourceUrl, v2Url, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * docs/api.md "Expanding links": `expand=["link_field", …]` on lists and reads (v1 and v2) and
 * `expand_links=1` on reads replace a Link's name by the linked document, read with the caller's
 * own rights: a document the caller may not read is never expanded, and fields above its
 * permlevels stay hidden inside the expanded one.
 */

const VENDOR = 'Xp Vendor';
const VAULT = 'Xp Vault';
const ORDER = 'Xp Order';
const LINE = 'Xp Line';

for (const dialect of testDialects()) {
  describe(`expanding links (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let order: Json;

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Xp Clerk');
      const clerkRead = { role: 'Xp Clerk', read: 1, write: 0, create: 0, delete: 0 };
      await createDocType(t, {
        name: VENDOR,
        autoname: 'field:vendor_name',
        fields: [
          { fieldname: 'vendor_name', label: 'Vendor Name', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'iban', label: 'IBAN', fieldtype: 'Data', permlevel: 1 },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'System Manager', permlevel: 1, read: 1, write: 1 }, clerkRead],
      });
      await createDocType(t, { name: VAULT, autoname: 'field:code', fields: [{ fieldname: 'code', label: 'Code', fieldtype: 'Data', reqd: 1 }] });
      await createDocType(t, { name: LINE, istable: 1, fields: [{ fieldname: 'supplier', label: 'Supplier', fieldtype: 'Link', options: VENDOR }] });
      await createDocType(t, {
        name: ORDER,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'vendor', label: 'Vendor', fieldtype: 'Link', options: VENDOR },
          { fieldname: 'vault', label: 'Vault', fieldtype: 'Link', options: VAULT },
          { fieldname: 'ref_type', label: 'Ref Type', fieldtype: 'Link', options: 'DocType' },
          { fieldname: 'ref', label: 'Ref', fieldtype: 'Dynamic Link', options: 'ref_type' },
          { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: LINE },
        ],
        permissions: [{ role: 'System Manager' }, clerkRead],
      });
      clerk = await createUser(t, 'xp-clerk@example.com', { roles: ['Xp Clerk'] });
      await insertDoc(t, VENDOR, { vendor_name: 'Acme', iban: 'DE00 SECRET' });
      await insertDoc(t, VAULT, { code: 'gold' });
      order = await insertDoc(t, ORDER, { title: 'o1', vendor: 'Acme', vault: 'gold', ref_type: VENDOR, ref: 'Acme', lines: [{ supplier: 'Acme' }] });
    });
    after(() => t.close());

    test('a list expands the named links (v1 and v2); the caller sees only what it may read', async () => {
      const params = { fields: ['name', 'vendor', 'vault', 'ref_type', 'ref'], expand: ['vendor', 'vault', 'ref'], filters: { name: order.name } };
      const [admin] = dataOf(await t.request({ method: 'GET', url: v2Url(ORDER) + query(params) })) as Json[];
      assert.equal(admin.vendor.name, 'Acme');
      assert.equal(admin.vendor.iban, 'DE00 SECRET');
      assert.equal(admin.vault.code, 'gold');
      assert.equal(admin.ref.vendor_name, 'Acme');
      assert.equal(admin.ref_type, VENDOR);
      const [mine] = dataOf(await actAs(t, clerk, { method: 'GET', url: resourceUrl(ORDER) + query(params) })) as Json[];
      assert.equal(mine.vendor.vendor_name, 'Acme');
      assert.equal('iban' in mine.vendor, false, "a field above the caller's permlevel stays hidden");
      assert.equal(mine.vault, 'gold', 'a document the caller may not read is never expanded');
    });

    test('rows as lists expand too; a field that is no link, an unknown one, or no page length is a 417', async () => {
      const rows = dataOf(
        await t.request({
          method: 'GET',
          url: resourceUrl(ORDER) + query({ fields: ['name', 'vendor'], expand: ['vendor'], as_dict: 0, filters: { name: order.name } }),
        }),
      ) as unknown[][];
      assert.equal((rows[0][1] as Json).name, 'Acme');
      assertError(await t.request({ method: 'GET', url: resourceUrl(ORDER) + query({ expand: ['title'] }) }), 417, 'DataError');
      assertError(await t.request({ method: 'GET', url: resourceUrl(ORDER) + query({ expand: ['nope'] }) }), 417, 'DataError');
      assertError(await t.request({ method: 'GET', url: resourceUrl(ORDER) + query({ expand: '{"a":1}' }) }), 417, 'DataError');
      assertError(await t.request({ method: 'GET', url: resourceUrl(ORDER) + query({ expand: ['vendor'], limit_page_length: 0 }) }), 417, 'DataError');
      assertV2Error(await t.request({ method: 'GET', url: v2Url(ORDER) + query({ expand: ['vendor'], limit: 5000 }) }), 417, 'DataError');
    });

    test('a read expands the named links, or every link with expand_links, child rows included', async () => {
      const named = dataOf(await t.request({ method: 'GET', url: v2Url(ORDER, order.name) + query({ expand: ['vendor'] }) }));
      assert.equal(named.vendor.vendor_name, 'Acme');
      assert.equal(named.vault, 'gold');
      assert.equal(named.lines[0].supplier, 'Acme');
      const all = dataOf(await actAs(t, clerk, { method: 'GET', url: resourceUrl(ORDER, order.name) + query({ expand_links: 1 }) }));
      assert.equal(all.vendor.vendor_name, 'Acme');
      assert.equal(all.ref.vendor_name, 'Acme');
      assert.equal(all.lines[0].supplier.vendor_name, 'Acme');
      assert.equal(all.vault, 'gold');
      assert.equal('iban' in all.vendor, false);
      // Without the parameters nothing changes.
      assert.equal(dataOf(await t.request({ method: 'GET', url: v2Url(ORDER, order.name) })).vendor, 'Acme');
    });
  });
}
