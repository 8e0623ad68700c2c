import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, resourceUrl } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Global search over HTTP (docs/search.md): the same corpus and the same expected answers on both
 * engines, so the ranking is shown identical; permissions, the after-commit index, rollbacks,
 * deletes, renames, diacritics, names like SINV-0001, settings and the rebuild job.
 */

const NOTE = 'Search Note';
const TASK = 'Search Task';
const SEARCH = '/api/method/frappe.utils.global_search.search';

interface Hit {
  doctype: string;
  name: string;
  title: string;
  content: string;
  rank: number;
}

for (const dialect of testDialects()) {
  describe(`global search (${dialect.name})`, () => {
    let t: TestSite;
    let owner: ActingUser;

    const search = async (text: string, extra: Record<string, unknown> = {}, user?: ActingUser): Promise<Hit[]> => {
      const req = { method: 'GET' as const, url: SEARCH + query({ text, ...extra }) };
      const res = user ? await actAs(t, user, req) : await t.request(req);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message as Hit[];
    };
    const names = (hits: Hit[]) => hits.map((h) => `${h.doctype}/${h.name}`);
    /** Waits (the index is written just after the commit) until `check` passes. */
    const eventually = async (check: () => Promise<void>) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          return await check();
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    };
    const note = (code: string, title: string, body = '', extra: Record<string, unknown> = {}) => insertDoc(t, NOTE, { code, title, body, ...extra });

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, 'Note Owner');
      await createDocType(t, {
        name: NOTE,
        autoname: 'field:code',
        title_field: 'title',
        allow_rename: 1,
        fields: [
          { fieldname: 'code', label: 'Code', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_global_search: 1 },
          { fieldname: 'body', label: 'Body', fieldtype: 'Text Editor', in_global_search: 1 },
          { fieldname: 'kind', label: 'Kind', fieldtype: 'Select', options: 'A\nB' },
          { fieldname: 'secret', label: 'Secret', fieldtype: 'Data', permlevel: 1, in_global_search: 1 },
        ],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
          { role: 'System Manager', permlevel: 1, read: 1, write: 1 },
          { role: 'Note Owner', read: 1, write: 1, create: 1, if_owner: 1 },
        ],
      });
      await createDocType(t, {
        name: TASK,
        fields: [{ fieldname: 'subject', label: 'Subject', fieldtype: 'Data', in_global_search: 1 }],
        title_field: 'subject',
      });
      owner = await createUser(t, 'note-owner@example.com', { roles: ['Note Owner'] });
      // The ranking corpus, inserted in this order (E before F: F is the more recently modified).
      await note('APPLE', 'Fruit basket', 'pears only');
      await note('N-B', 'Apple pie', 'a dessert');
      await note('N-C', 'Orchard log', '<p>apple apple apple banana</p>');
      await note('N-D', 'Market day', '<p>an apple among many other things sold at the market on a long and busy day</p>');
      await note('N-E', 'Tart one', 'apple tart');
      await note('N-F', 'Tart two', 'apple tart');
      await note('SINV-0001', 'Invoice for Zoë', 'Crème brûlée for São Paulo', { secret: 'topsecretword' });
      await note('SINV-0002', 'Second invoice', 'plain');
      await insertDoc(t, TASK, { subject: 'Apple harvest task' });
      const own = await actAs(t, owner, { method: 'POST', url: resourceUrl(NOTE), body: { code: 'OWN-1', title: 'My own apple note' } });
      assert.equal(own.statusCode, 200, own.body);
      await eventually(async () => assert.ok((await search('apple')).some((h) => h.name === 'OWN-1')));
    });
    after(() => t.close());

    test('one ranking: exact name, title hits, engine score, then the newest; the same on both engines', async () => {
      const hits = await search('apple', { doctype: NOTE });
      assert.deepEqual(names(hits), [
        `${NOTE}/APPLE`,
        // Both titles hold the word: the engine's score puts the shorter title first.
        `${NOTE}/N-B`,
        `${NOTE}/OWN-1`,
        `${NOTE}/N-C`,
        `${NOTE}/N-F`,
        `${NOTE}/N-E`,
        `${NOTE}/N-D`,
      ]);
      const b = hits.find((h) => h.name === 'N-B')!;
      assert.equal(b.title, 'Apple pie');
      assert.equal(b.content, 'Title : Apple pie ||| Body : a dessert');
      assert.equal(hits.find((h) => h.name === 'N-C')!.content, 'Title : Orchard log ||| Body : apple apple apple banana');
    });

    test('start and limit page through the same order', async () => {
      const all = names(await search('apple', { doctype: NOTE }));
      assert.deepEqual(names(await search('apple', { doctype: NOTE, start: 2, limit: 3 })), all.slice(2, 5));
    });

    test('diacritics are folded both ways, words match by prefix', async () => {
      for (const text of ['creme brulee', 'Crème', 'CREME', 'brul', 'sao paulo', 'zoe']) {
        assert.deepEqual(names(await search(text)), [`${NOTE}/SINV-0001`], text);
      }
    });

    test('document names like SINV-0001: the exact name first, parts of it find it too', async () => {
      assert.deepEqual(names(await search('SINV-0001')), [`${NOTE}/SINV-0001`]);
      assert.deepEqual(names(await search('sinv-000')), [`${NOTE}/SINV-0002`, `${NOTE}/SINV-0001`]);
      assert.deepEqual(names(await search('0002')), [`${NOTE}/SINV-0002`]);
    });

    test('a field above permlevel 0 is never indexed', async () => {
      assert.deepEqual(await search('topsecretword'), []);
      assert.ok(!(await search('SINV-0001'))[0].content.includes('topsecret'));
    });

    test('a document the user may not read is never returned', async () => {
      assert.deepEqual(names(await search('apple', {}, owner)), [`${NOTE}/OWN-1`]);
      assert.deepEqual(await search('SINV-0001', {}, owner), []);
      assert.deepEqual(await search('apple', { doctype: TASK }, owner), []);
      const guest = await t.request({ method: 'GET', url: '/api/method/frappe.utils.global_search.web_search' + query({ text: 'apple' }), anonymous: true });
      assert.equal(guest.statusCode, 200, guest.body);
      assert.deepEqual(guest.json().message, []);
      const guestSearch = await t.request({ method: 'GET', url: SEARCH + query({ text: 'apple' }), anonymous: true });
      assert.equal(guestSearch.statusCode, 403);
    });

    test('web_search answers in the reference shape', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/frappe.utils.global_search.web_search' + query({ text: 'Second invoice' }) });
      assert.deepEqual(res.json().message, [
        { doctype: NOTE, name: 'SINV-0002', content: 'Title : Second invoice ||| Body : plain', title: 'Second invoice', route: null },
      ]);
    });

    test('the index changes after a commit, never for a rolled-back write', async () => {
      const failed = await t.request({
        method: 'POST',
        url: '/api/method/frappe.client.insert_many',
        body: {
          docs: [
            { doctype: NOTE, code: 'RB-1', title: 'rollbackword one' },
            { doctype: NOTE, code: 'RB-2', title: 'rollbackword two', kind: 'Z' },
          ],
        },
      });
      assert.equal(failed.statusCode, 417, failed.body);
      await note('CTRL-1', 'controlword');
      await eventually(async () => assert.deepEqual(names(await search('controlword')), [`${NOTE}/CTRL-1`]));
      assert.deepEqual(await search('rollbackword'), []);
    });

    test('a saved document is re-indexed, a deleted one leaves, a renamed one is re-keyed', async () => {
      await note('LIFE-1', 'lifecycleword first');
      await eventually(async () => assert.deepEqual(names(await search('lifecycleword')), [`${NOTE}/LIFE-1`]));
      const put = await t.request({ method: 'PUT', url: resourceUrl(NOTE, 'LIFE-1'), body: { title: 'changedword now' } });
      assert.equal(put.statusCode, 200, put.body);
      await eventually(async () => assert.deepEqual(names(await search('changedword')), [`${NOTE}/LIFE-1`]));
      assert.deepEqual(await search('lifecycleword'), []);
      const renamed = await t.request({
        method: 'POST',
        url: '/api/method/frappe.client.rename_doc',
        body: { doctype: NOTE, old_name: 'LIFE-1', new_name: 'LIFE-2' },
      });
      // A rename may be queued as a job (202): the worker runs it.
      assert.ok(renamed.statusCode === 200 || renamed.statusCode === 202, renamed.body);
      await new JobWorker(t.site.jobs).runDue();
      await eventually(async () => assert.deepEqual(names(await search('changedword')), [`${NOTE}/LIFE-2`]));
      assert.deepEqual(await search('LIFE-1'), []);
      const deleted = await t.request({ method: 'DELETE', url: resourceUrl(NOTE, 'LIFE-2') });
      assert.ok(deleted.statusCode === 200 || deleted.statusCode === 202, deleted.body);
      await new JobWorker(t.site.jobs).runDue();
      await eventually(async () => assert.deepEqual(await search('changedword'), []));
    });

    test('Global Search Settings choose the DocTypes searched and their order', async () => {
      const set = (rows: string[]) =>
        t.request({
          method: 'PUT',
          url: resourceUrl('Global Search Settings', 'Global Search Settings'),
          body: { allowed_in_global_search: rows.map((document_type) => ({ document_type })) },
        });
      assert.equal((await set([TASK])).statusCode, 200);
      assert.deepEqual(names(await search('apple')), [`${TASK}/${(await search('harvest'))[0].name}`]);
      const both = await set([TASK, NOTE]);
      assert.equal(both.statusCode, 200, both.body);
      const hits = await search('apple');
      assert.equal(hits.length, 8);
      assert.equal(hits[0].name, 'APPLE', 'the exact name still comes first');
      assert.equal((await set([])).statusCode, 200);
    });

    test('a DocType that gains an in_global_search field is indexed by the rebuild job', async () => {
      await createDocType(t, { name: 'Late Note', fields: [{ fieldname: 'label', label: 'Label', fieldtype: 'Data' }] });
      await insertDoc(t, 'Late Note', { label: 'latecomerword' });
      await new JobWorker(t.site.jobs).runDue();
      assert.deepEqual(await search('latecomerword'), []);
      const def = await t.request({ method: 'GET', url: resourceUrl('DocType', 'Late Note') });
      const fields = (def.json().data.fields as Array<Record<string, unknown>>).map((f) => (f.fieldname === 'label' ? { ...f, in_global_search: 1 } : f));
      const put = await t.request({ method: 'PUT', url: resourceUrl('DocType', 'Late Note'), body: { fields } });
      assert.equal(put.statusCode, 200, put.body);
      await new JobWorker(t.site.jobs).runDue();
      assert.deepEqual(
        (await search('latecomerword')).map((h) => h.doctype),
        ['Late Note'],
      );
    });

    test('bad input is a clear 4xx, never a 500', async () => {
      for (const params of [
        { text: 'x'.repeat(501) },
        { text: 'apple', limit: 0 },
        { text: 'apple', limit: 'many' },
        { text: 'apple', start: -1 },
        { text: 'apple', doctype: 'No Such' },
      ]) {
        const res = await t.request({ method: 'GET', url: SEARCH + query(params) });
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${JSON.stringify(params)}: ${res.statusCode} ${res.body}`);
      }
      for (const text of ['"', '*', 'a AND b OR', "'); drop table x; --", 'NEAR(a b)', ':*', '&|!']) assert.ok(Array.isArray(await search(text)), text);
    });
  });
}
