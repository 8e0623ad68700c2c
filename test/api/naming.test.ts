import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import {
  assertAbsent,
  assertError,
  createDocType,
  dataOf,
  insertDoc,
  readDoc,
  resourceUrl,
  storedCount,
  uniqueDocTypeName,
  v2Url,
  type Json,
} from '../helpers/document-api.js';

const TITLE = { fieldname: 'title', label: 'Title', fieldtype: 'Data' };
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const dialect of testDialects()) {
  describe(`naming (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    /** A new DocType with a title field and the given naming rule; returns its name. */
    async function doctypeNamed(autoname: string | undefined, extra: Json = {}): Promise<string> {
      const name = uniqueDocTypeName('Named');
      await createDocType(t, { name, ...(autoname === undefined ? {} : { autoname }), fields: [TITLE], ...extra });
      return name;
    }

    function post(doctype: string, body: Json) {
      return t.request({ method: 'POST', url: resourceUrl(doctype), body });
    }

    test('hash naming (the default) gives 10 lowercase base-32 characters, different each time', async () => {
      for (const autoname of [undefined, 'hash']) {
        const dt = await doctypeNamed(autoname);
        const names = new Set<string>();
        for (let i = 0; i < 5; i++) {
          const doc = await insertDoc(t, dt, { title: `t${i}` });
          assert.match(doc.name, /^[0-9a-v]{10}$/);
          names.add(doc.name);
        }
        assert.equal(names.size, 5);
      }
    });

    test('autoincrement names are "1", "2", ... as JSON strings, and read back by that name', async () => {
      const dt = await doctypeNamed('autoincrement');
      const first = await insertDoc(t, dt, { title: 'a' });
      const second = await insertDoc(t, dt, { title: 'b' });
      assert.equal(first.name, '1');
      assert.equal(second.name, '2');
      const read = await readDoc(t, dt, '2');
      assert.equal(read.name, '2');
      assert.equal(read.title, 'b');
      assert.equal((await readDoc(t, dt, '1', 'v2')).name, '1');
      assert.equal(dataOf(await t.request({ method: 'PUT', url: resourceUrl(dt, '1'), body: { title: 'c' } })).name, '1');
    });

    test('autoincrement ignores a name sent on a v1 create', async () => {
      const dt = await doctypeNamed('autoincrement');
      assert.equal((await insertDoc(t, dt, { name: '77', title: 'a' })).name, '1');
      await assertAbsent(t, dt, '77');
    });

    test('field:title names the document after its trimmed title', async () => {
      const dt = await doctypeNamed('field:title');
      const doc = await insertDoc(t, dt, { title: '  Dune  ', name: 'ignored' });
      assert.equal(doc.name, 'Dune');
      assert.equal((await readDoc(t, dt, 'Dune')).name, 'Dune');
    });

    test('field:title without a title is refused with 417 and nothing is stored', async () => {
      const dt = await doctypeNamed('field:title');
      assertError(await post(dt, { title: '   ' }), 417, 'MandatoryError');
      assertError(await post(dt, {}), 417, 'MandatoryError');
      assert.equal(await storedCount(t, dt), 0);
    });

    test('format:BK-{YYYY}-{####} fills in the year and a zero-padded counter', async () => {
      const dt = await doctypeNamed('format:BK-{YYYY}-{####}');
      const first = await insertDoc(t, dt, { title: 'a' });
      const year = String(first.creation).slice(0, 4);
      assert.equal(first.name, `BK-${year}-0001`);
      assert.equal((await insertDoc(t, dt, { title: 'b' })).name, `BK-${year}-0002`);
    });

    test('format: can take a field value into the name', async () => {
      const dt = await doctypeNamed('format:DOC-{title}-{##}');
      assert.equal((await insertDoc(t, dt, { title: 'alpha' })).name, 'DOC-alpha-01');
      assert.equal((await insertDoc(t, dt, { title: 'beta' })).name, 'DOC-beta-01');
    });

    test('a series INV-.YYYY.-.#### counts per prefix, and DocTypes sharing the prefix share the counter', async () => {
      const invoices = await doctypeNamed('INV-.YYYY.-.####');
      const credits = await doctypeNamed('INV-.YYYY.-.####');
      const first = await insertDoc(t, invoices, { title: 'a' });
      const year = String(first.creation).slice(0, 4);
      assert.equal(first.name, `INV-${year}-0001`);
      assert.equal((await insertDoc(t, invoices, { title: 'b' })).name, `INV-${year}-0002`);
      assert.equal((await insertDoc(t, credits, { title: 'c' })).name, `INV-${year}-0003`);
      assert.equal((await insertDoc(t, invoices, { title: 'd' })).name, `INV-${year}-0004`);
      const other = await doctypeNamed('CRN-.####');
      assert.equal((await insertDoc(t, other, { title: 'e' })).name, 'CRN-0001');
    });

    test('a refused insert does not use up a series number', async () => {
      const dt = uniqueDocTypeName('Named');
      await createDocType(t, { name: dt, autoname: 'REF-.####', fields: [{ ...TITLE, reqd: 1 }] });
      assert.equal((await insertDoc(t, dt, { title: 'a' })).name, 'REF-0001');
      assertError(await post(dt, {}), 417, 'MandatoryError');
      assert.equal((await insertDoc(t, dt, { title: 'b' })).name, 'REF-0002');
    });

    test('prompt naming keeps the client name, and without a name is 417 with nothing stored', async () => {
      const dt = await doctypeNamed('prompt');
      assert.equal((await insertDoc(t, dt, { name: 'my name', title: 'a' })).name, 'my name');
      assert.equal((await insertDoc(t, dt, { name: '  padded  ', title: 'a' })).name, 'padded');
      assertError(await post(dt, { title: 'nameless' }), 417, 'ValidationError');
      assertError(await post(dt, { name: '   ', title: 'blank' }), 417, 'ValidationError');
      assert.equal(await storedCount(t, dt), 2);
    });

    test('UUID naming makes UUIDv7 names', async () => {
      const dt = await doctypeNamed('UUID');
      const a = await insertDoc(t, dt, { title: 'a' });
      const b = await insertDoc(t, dt, { title: 'b' });
      assert.match(a.name, UUID_V7);
      assert.match(b.name, UUID_V7);
      assert.notEqual(a.name, b.name);
      assert.equal((await readDoc(t, dt, a.name)).title, 'a');
    });

    test('UUID naming keeps a UUID the client sends, on v1 and v2', async () => {
      const dt = await doctypeNamed('UUID');
      const v4 = '3f1b0c2e-8a4d-4c1e-9b2a-0d6f5e4c3b2a';
      assert.equal((await insertDoc(t, dt, { name: v4, title: 'a' })).name, v4);
      const v7 = '01890a5d-ac96-774b-bcce-b302099a8057';
      assert.equal(dataOf(await t.request({ method: 'POST', url: v2Url(dt), body: { name: v7, title: 'b' } })).name, v7);
    });

    test('UUID naming refuses a client name that is not a UUID with 417 and stores nothing', async () => {
      const dt = await doctypeNamed('UUID');
      assertError(await post(dt, { name: 'not-a-uuid', title: 'a' }), 417, 'InvalidUUIDValue');
      const v2 = await t.request({ method: 'POST', url: v2Url(dt), body: { name: 'also-not-a-uuid', title: 'b' } });
      assertV2Error(v2, 417, 'InvalidUUIDValue');
      assert.equal(await storedCount(t, dt), 0);
    });

    const invalidNames: Array<{ case: string; name: (doctype: string) => string }> = [
      { case: 'markup like <b>', name: () => '<b>' },
      { case: 'a > sign', name: () => 'a > b' },
      { case: 'the DocType name itself', name: (dt) => dt },
      { case: 'the "New <DocType>" placeholder', name: (dt) => `New ${dt} 1` },
      { case: 'more than 140 characters', name: () => 'x'.repeat(141) },
      { case: 'a NUL character', name: () => 'a\u0000b' },
      { case: 'a line break inside', name: () => 'first\nsecond' },
    ];
    for (const c of invalidNames) {
      test(`a name with ${c.case} is 409 NameError and nothing is stored`, async () => {
        const dt = await doctypeNamed('prompt');
        const name = c.name(dt);
        assertError(await post(dt, { name, title: 'a' }), 409, 'NameError');
        assertV2Error(await t.request({ method: 'POST', url: v2Url(dt), body: { name, title: 'a' } }), 409, 'NameError');
        assert.equal(await storedCount(t, dt), 0);
      });
    }

    test('a v2 insert keeps a client name whatever the naming rule', async () => {
      for (const autoname of ['hash', 'format:BK-{####}', 'field:title']) {
        const dt = await doctypeNamed(autoname);
        const res = await t.request({ method: 'POST', url: v2Url(dt), body: { name: 'chosen-by-client', title: 'T' } });
        assert.equal(dataOf(res).name, 'chosen-by-client', autoname);
        assert.equal((await readDoc(t, dt, 'chosen-by-client')).title, 'T');
      }
    });

    test('a v2 insert of a name that already exists is 409 DuplicateEntryError', async () => {
      const dt = await doctypeNamed('hash');
      const first = dataOf(await t.request({ method: 'POST', url: v2Url(dt), body: { name: 'taken', title: 'first' } }));
      const res = await t.request({ method: 'POST', url: v2Url(dt), body: { name: 'taken', title: 'second' } });
      assertV2Error(res, 409, 'DuplicateEntryError');
      assert.deepEqual(await readDoc(t, dt, 'taken', 'v2'), first);
    });
  });
}
