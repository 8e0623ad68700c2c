import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, storedCount, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * The methods the desk and its Link fields call (docs/api.md "Desk methods"): search_link,
 * search_widget, reportview.get / get_count, form.load.getdoc, validate_link, get_user_info, and
 * Comments through add_comment.
 */

for (const dialect of testDialects()) {
  describe(`desk methods (${dialect.name})`, () => {
    let t: TestSite;
    let reader: string;
    let stranger: string;
    const CITY = uniqueDocTypeName('City');

    before(async () => {
      t = await startTestSite(dialect);
      await insertDoc(t, 'Role', { role_name: 'City Reader' });
      await createDocType(t, {
        name: CITY,
        autoname: 'field:code',
        title_field: 'city_name',
        search_fields: 'country, code',
        fields: [
          { fieldname: 'code', label: 'Code', fieldtype: 'Data', reqd: 1, unique: 1 },
          { fieldname: 'city_name', label: 'City Name', fieldtype: 'Data' },
          { fieldname: 'country', label: 'Country', fieldtype: 'Data' },
          { fieldname: 'disabled', label: 'Disabled', fieldtype: 'Check' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', permlevel: 1 },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'City Reader', read: 1, write: 0, create: 0, delete: 0 }],
      });
      for (const [code, city_name, country, disabled] of [
        ['BER', 'Berlin', 'Germany', 0],
        ['BRN', 'Bern', 'Switzerland', 0],
        ['PAR', 'Paris', 'France', 0],
        ['OLD', 'Bernau Old', 'Germany', 1],
        ['X_1', '100% Town', 'Nowhere', 0],
      ] as const) {
        await insertDoc(t, CITY, { code, city_name, country, disabled, secret: `s-${code}` });
      }
      await createUser(t, { email: 'city-reader@example.com', password: 'Reader-Secret-42', roles: ['City Reader'] });
      reader = await tokenFor(t, 'city-reader@example.com');
      await createUser(t, { email: 'city-stranger@example.com', password: 'Stranger-Secret-42' });
      stranger = await tokenFor(t, 'city-stranger@example.com');
    });
    after(() => t.close());

    describe('search_link', () => {
      test('matches name, title and search fields case-insensitively, leaving disabled documents out', async () => {
        const found = messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'bER' }));
        assert.deepEqual(found.map((r: Json) => r.value).sort(), ['BER', 'BRN']);
        const berlin = found.find((r: Json) => r.value === 'BER');
        assert.deepEqual(berlin, { value: 'BER', label: 'Berlin', description: 'Germany, BER' });
      });

      test('answers under frappe.* too, narrowed by filters and page_length', async () => {
        const all = messageOf(await callMethod(t, 'POST', 'frappe.desk.search.search_link', { doctype: CITY, txt: '', filters: { country: 'Germany' } }));
        assert.deepEqual(
          all.map((r: Json) => r.value),
          ['BER'],
        );
        const one = messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: '', page_length: 1 }));
        assert.equal(one.length, 1);
      });

      test('% and _ in the text match themselves, not any character', async () => {
        assert.deepEqual(
          messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: '100%' })).map((r: Json) => r.value),
          ['X_1'],
        );
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'R_' })), []);
      });

      test('a caller who may not read the DocType is refused; bad arguments are 417', async () => {
        assertError(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'b' }, stranger), 403, 'PermissionError');
        assertError(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'b', filters: 'nope{' }), 417, 'DataError');
        assertError(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'b', page_length: -1 }), 417, 'DataError');
        assertError(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: CITY, txt: 'b', query: 'select 1' }), 417, 'DataError');
        assertError(await callMethod(t, 'GET', 'fw.desk.search.search_link', { doctype: 'No Such', txt: 'b' }), 404, 'DoesNotExistError');
      });

      test('search_widget answers rows as arrays, or objects with as_dict', async () => {
        const rows = messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_widget', { doctype: CITY, txt: 'paris' }, reader));
        assert.deepEqual(rows, [['PAR', 'Paris', 'France', 'PAR']]);
        const dicts = messageOf(await callMethod(t, 'GET', 'fw.desk.search.search_widget', { doctype: CITY, txt: 'paris', as_dict: 1 }));
        assert.deepEqual(dicts, [{ name: 'PAR', city_name: 'Paris', country: 'France', code: 'PAR' }]);
      });
    });

    describe('reportview', () => {
      test('get answers keys and values; start and page_length page them', async () => {
        const body = messageOf(
          await callMethod(t, 'GET', 'fw.desk.reportview.get', { doctype: CITY, fields: ['name', 'country'], order_by: 'name asc', start: 1, page_length: 2 }),
        );
        assert.deepEqual(body, {
          keys: ['name', 'country'],
          values: [
            ['BRN', 'Switzerland'],
            ['OLD', 'Germany'],
          ],
          user_info: {},
        });
      });

      test('get refuses fields the caller may not read, and get_count counts what the caller sees', async () => {
        assertError(await callMethod(t, 'GET', 'fw.desk.reportview.get', { doctype: CITY, fields: ['secret'] }, reader), 403, 'PermissionError');
        assert.equal(messageOf(await callMethod(t, 'GET', 'frappe.desk.reportview.get_count', { doctype: CITY, filters: { country: 'Germany' } }, reader)), 2);
        assertError(await callMethod(t, 'GET', 'fw.desk.reportview.get_count', { doctype: CITY }, stranger), 403, 'PermissionError');
      });
    });

    describe('validate_link', () => {
      test('names an existing document, null for a missing one, and the fields asked for', async () => {
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'fw.client.validate_link', { doctype: CITY, docname: 'BER' }, reader)), { name: 'BER' });
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'frappe.client.validate_link', { doctype: CITY, docname: 'NOPE' })), { name: null });
        assert.deepEqual(
          messageOf(await callMethod(t, 'GET', 'fw.client.validate_link', { doctype: CITY, docname: 'BER', fields: ['city_name', 'country'] }, reader)),
          { name: 'BER', city_name: 'Berlin', country: 'Germany' },
        );
      });

      test('is refused to a caller with neither select nor read, so existence does not leak', async () => {
        assertError(await callMethod(t, 'GET', 'fw.client.validate_link', { doctype: CITY, docname: 'BER' }, stranger), 403, 'PermissionError');
        assertError(await callMethod(t, 'GET', 'fw.client.validate_link', { doctype: CITY }), 417, 'FrappeTypeError');
      });
    });

    describe('get_user_info', () => {
      test('answers the caller and their user type, Guest included', async () => {
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'fw.realtime.get_user_info')), { user: 'Administrator', user_type: 'System User' });
        assert.deepEqual(messageOf(await callMethod(t, 'GET', 'frappe.realtime.get_user_info', {}, reader)), {
          user: 'city-reader@example.com',
          user_type: 'System User',
        });
        const guest = await t.request({ method: 'GET', url: '/api/method/frappe.realtime.get_user_info', anonymous: true });
        assert.deepEqual(messageOf(guest), { user: 'Guest', user_type: 'Guest' });
      });
    });

    describe('comments and getdoc', () => {
      test('add_comment stores a Comment about the document, which getdoc returns in docinfo', async () => {
        const res = await callMethod(t, 'POST', 'run_doc_method', {
          dt: CITY,
          dn: 'PAR',
          method: 'add_comment',
          args: { text: 'Lovely <b>city</b><script>x()</script>' },
        });
        const comment = messageOf(res);
        assert.equal(comment.doctype, 'Comment');
        assert.equal(comment.reference_doctype, CITY);
        assert.equal(comment.reference_name, 'PAR');
        assert.equal(comment.comment_type, 'Comment');
        assert.equal(comment.comment_email, 'Administrator');
        assert.equal(comment.content, 'Lovely <b>city</b>');

        const body = (await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: CITY, name: 'PAR' })).json();
        assert.equal(body.message, undefined);
        assert.equal(body.docs[0].name, 'PAR');
        assert.equal(body.docs[0].secret, 's-PAR');
        const info = body.docinfo;
        assert.deepEqual(
          info.comments.map((c: Json) => c.content),
          ['Lovely <b>city</b>'],
        );
        assert.equal(info.permissions.read, 1);
        assert.equal(info.permissions.write, 1);
        assert.deepEqual(info.attachments, []);
      });

      test('a reader sees the form without fields above their level, comments included, and no write right', async () => {
        const body = (await callMethod(t, 'GET', 'frappe.desk.form.load.getdoc', { doctype: CITY, name: 'PAR' }, reader)).json();
        assert.equal(body.docs[0].secret, undefined);
        assert.equal(body.docinfo.permissions.write, 0);
        assert.equal(body.docinfo.comments.length, 1);
        // Comments are readable to whoever may read the document, and listable for DocTypes they read in full.
        const listed = (
          await t.request({
            method: 'GET',
            url: `/api/resource/Comment?fields=["content"]&filters=${encodeURIComponent(JSON.stringify({ reference_name: 'PAR' }))}`,
            headers: { authorization: reader },
          })
        ).json();
        assert.deepEqual(listed.data, [{ content: 'Lovely <b>city</b>' }]);
      });

      test('a reader may not comment through the write route, and strangers see neither form nor comments', async () => {
        const before = await storedCount(t, 'Comment');
        assertError(
          await callMethod(t, 'POST', 'run_doc_method', { dt: CITY, dn: 'PAR', method: 'add_comment', args: { text: 'x' } }, stranger),
          403,
          'PermissionError',
        );
        assertError(await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: CITY, name: 'PAR' }, stranger), 403, 'PermissionError');
        const listed = (await t.request({ method: 'GET', url: '/api/resource/Comment?fields=["content"]', headers: { authorization: stranger } })).json();
        assert.deepEqual(listed.data, []);
        const inserted = await t.request({
          method: 'POST',
          url: '/api/resource/Comment',
          headers: { authorization: stranger },
          body: { reference_doctype: CITY, reference_name: 'PAR', content: 'sneaky' },
        });
        assertError(inserted, 403, 'PermissionError');
        assert.equal(await storedCount(t, 'Comment'), before);
      });

      test('getdoc of a missing document is 404 to readers and 403 to strangers', async () => {
        assertError(await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: CITY, name: 'NOPE' }, reader), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'GET', 'fw.desk.form.load.getdoc', { doctype: CITY, name: 'NOPE' }, stranger), 403, 'PermissionError');
      });
    });
  });
}
