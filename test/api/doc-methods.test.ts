import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../src/errors/index.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor } from '../helpers/user-sessions.js';

/*
 * Whitelisted document methods (reference §3, §14): `run_doc_method` answers
 * `{"message": ret, "docs": [doc]}`, `?run_method=` on a v1 document answers `{"data": ret}`.
 * The methods are registered by the test, as an app would register its own.
 */

const GIZMO = 'Gizmo';
const GIZMO_SETTINGS = 'Gizmo Settings';

for (const dialect of testDialects()) {
  describe(`document methods (${dialect.name})`, () => {
    let t: TestSite;
    let reader: string;
    let stranger: string;
    const gizmo = (body: Json = {}) => insertDoc(t, GIZMO, { title: 'T', count: 1, ...body });

    before(async () => {
      t = await startTestSite(dialect);
      await insertDoc(t, 'Role', { role_name: 'Gizmo Reader' });
      await createDocType(t, {
        name: GIZMO,
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'count', label: 'Count', fieldtype: 'Int' },
        ],
        permissions: [{ role: 'System Manager' }, { role: 'Gizmo Reader', read: 1, write: 0, create: 0, delete: 0 }],
      });
      await createUser(t, { email: 'reader@example.com', password: 'Reader-Secret-42', roles: ['Gizmo Reader'] });
      reader = await tokenFor(t, 'reader@example.com');
      await createUser(t, { email: 'stranger@example.com', password: 'Stranger-Secret-42' });
      stranger = await tokenFor(t, 'stranger@example.com');

      const methods = t.site.methods;
      methods.registerDocMethod(GIZMO, 'describe', async ({ doc, args }) => `${String(doc.title)} x${String(args.times ?? 1)}`);
      methods.registerDocMethod(
        GIZMO,
        'bump',
        async ({ ctx, services, doc, args }) => {
          const saved = await services.documents.update(ctx, GIZMO, String(doc.name), { count: Number(doc.count) + Number(args.by ?? 1) });
          return saved.count;
        },
        { methods: ['POST'] },
      );
      methods.registerDocMethod(GIZMO, 'preview', async ({ doc }) => {
        doc.title = `${String(doc.title)}!`;
        return undefined;
      });
      methods.registerDocMethod(GIZMO, 'explode', async ({ ctx, services, doc }) => {
        await services.documents.update(ctx, GIZMO, String(doc.name), { count: 999 });
        throw new ValidationError('exploded after saving');
      });
      methods.registerDocMethod(GIZMO, 'internal', async () => 'secret', { whitelisted: false });
      methods.registerDocMethod('*', 'whoami', async ({ ctx, doc }) => `${ctx.principal.user} on ${String(doc.doctype)}`);
    });
    after(() => t.close());

    describe('run_doc_method', () => {
      test('answers the return value under message and the document under docs', async () => {
        const doc = await gizmo();
        const res = await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'describe', args: '{"times": 2}' });
        const body = res.json();
        assert.equal(messageOf(res), 'T x2');
        assert.equal(body.docs.length, 1);
        assert.equal(body.docs[0].name, doc.name);
        assert.equal(body.docs[0].doctype, GIZMO);
        assert.equal(body.docs[0].modified, doc.modified);
      });

      test('a method that saves answers the saved document, and the save is stored', async () => {
        const doc = await gizmo();
        const body = (await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'bump', args: { by: 3 } })).json();
        assert.equal(body.message, 4);
        assert.equal(body.docs[0].count, 4);
        assert.ok(body.docs[0].modified > doc.modified);
        assert.equal((await readDoc(t, GIZMO, doc.name)).count, 4);
      });

      test('a method returning nothing answers only docs, carrying its unsaved changes', async () => {
        const doc = await gizmo();
        const body = (await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'preview' })).json();
        assert.deepEqual(Object.keys(body), ['docs']);
        assert.equal(body.docs[0].title, 'T!');
        assert.equal((await readDoc(t, GIZMO, doc.name)).title, 'T');
      });

      test('docs sends the client copy: its values are used, and a stale modified is a 417', async () => {
        const doc = await gizmo();
        const res = await callMethod(t, 'POST', 'run_doc_method', { docs: JSON.stringify({ ...doc, title: 'unsaved' }), method: 'describe' });
        assert.equal(messageOf(res), 'unsaved x1');
        messageOf(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'bump' }));
        const stale = await callMethod(t, 'POST', 'run_doc_method', { docs: doc, method: 'describe' });
        assertError(stale, 417, 'TimestampMismatchError');
      });

      test("a method's own verbs apply: GET reaches describe but not the POST-only bump", async () => {
        const doc = await gizmo();
        assert.equal(messageOf(await callMethod(t, 'GET', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'describe' })), 'T x1');
        assertError(await callMethod(t, 'GET', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'bump' }), 403, 'PermissionError');
        assert.equal((await readDoc(t, GIZMO, doc.name)).count, 1);
      });

      test('an unknown method is a 404, a non-whitelisted one a 403', async () => {
        const doc = await gizmo();
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'fly' }), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'internal' }), 403, 'PermissionError');
      });

      test('a method registered for every DocType runs on any document', async () => {
        const todo = await insertDoc(t, 'ToDo', { description: 'any' });
        const res = await callMethod(t, 'POST', 'run_doc_method', { dt: 'ToDo', dn: todo.name, method: 'whoami' });
        assert.equal(messageOf(res), 'Administrator on ToDo');
      });

      test('a method that fails after saving leaves nothing stored', async () => {
        const doc = await gizmo();
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'explode' }), 417, 'ValidationError');
        assert.equal((await readDoc(t, GIZMO, doc.name)).count, 1);
      });

      test('missing arguments are 417 FrappeTypeError; a missing document 404; no read permission 403', async () => {
        const doc = await gizmo();
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { method: 'describe' }), 417, 'FrappeTypeError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: 'no-such', method: 'describe' }), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'describe' }, stranger), 403, 'PermissionError');
        assert.equal(messageOf(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO, dn: doc.name, method: 'describe' }, reader)), 'T x1');
      });
    });

    describe('run_method on /api/resource', () => {
      test('POST runs the method with the other arguments and answers {"data": ret}', async () => {
        const doc = await gizmo();
        const res = await t.request({ method: 'POST', url: `${resourceUrl(GIZMO, doc.name)}?run_method=bump`, body: { by: 2 } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { data: 3 });
        assert.equal((await readDoc(t, GIZMO, doc.name)).count, 3);
      });

      test('GET runs it read-only with the query arguments; nothing returned is data null', async () => {
        const doc = await gizmo();
        const res = await t.request({ method: 'GET', url: `${resourceUrl(GIZMO, doc.name)}?run_method=describe&times=3` });
        assert.deepEqual(res.json(), { data: 'T x3' });
        const none = await t.request({ method: 'GET', url: `${resourceUrl(GIZMO, doc.name)}?run_method=preview` });
        assert.deepEqual(none.json(), { data: null });
      });

      test('POST needs write permission, GET read permission', async () => {
        const doc = await gizmo();
        const url = `${resourceUrl(GIZMO, doc.name)}?run_method=describe`;
        assertError(await t.request({ method: 'POST', url, headers: { authorization: reader } }), 403, 'PermissionError');
        const read = await t.request({ method: 'GET', url, headers: { authorization: reader } });
        assert.deepEqual(read.json(), { data: 'T x1' });
        assertError(await t.request({ method: 'GET', url, headers: { authorization: stranger } }), 403, 'PermissionError');
      });

      test('an unknown method is a 404; a POST without run_method is still 405', async () => {
        const doc = await gizmo();
        assertError(await t.request({ method: 'POST', url: `${resourceUrl(GIZMO, doc.name)}?run_method=fly` }), 404, 'DoesNotExistError');
        assertError(await t.request({ method: 'POST', url: resourceUrl(GIZMO, doc.name), body: { by: 1 } }), 405, 'MethodNotAllowed');
      });
    });

    describe('on a Single DocType (the document is named after its DocType)', () => {
      before(async () => {
        await createDocType(t, {
          name: GIZMO_SETTINGS,
          issingle: 1,
          fields: [
            { fieldname: 'label', label: 'Label', fieldtype: 'Data', default: 'Main' },
            { fieldname: 'counter', label: 'Counter', fieldtype: 'Int' },
          ],
          permissions: [{ role: 'System Manager' }, { role: 'Gizmo Reader', read: 1, write: 0, create: 0, delete: 0 }],
        });
        const methods = t.site.methods;
        methods.registerDocMethod(GIZMO_SETTINGS, 'describe', async ({ doc }) => `${String(doc.name)}: ${String(doc.label)}`);
        methods.registerDocMethod(
          GIZMO_SETTINGS,
          'bump',
          async ({ ctx, services, doc }) =>
            (await services.documents.update(ctx, GIZMO_SETTINGS, GIZMO_SETTINGS, { counter: Number(doc.counter ?? 0) + 1 })).counter,
          { methods: ['POST'] },
        );
      });

      test('run_doc_method with dt alone runs on the Single and answers it under docs', async () => {
        const body = (await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO_SETTINGS, method: 'describe' })).json();
        assert.equal(body.message, `${GIZMO_SETTINGS}: Main`);
        assert.equal(body.docs[0].name, GIZMO_SETTINGS);
        assert.equal(body.docs[0].doctype, GIZMO_SETTINGS);
        const named = await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO_SETTINGS, dn: GIZMO_SETTINGS, method: 'whoami' });
        assert.equal(messageOf(named), `Administrator on ${GIZMO_SETTINGS}`);
      });

      test('a method that saves the Single answers the saved document; the client copy form works too', async () => {
        const body = (await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO_SETTINGS, method: 'bump' })).json();
        assert.equal(body.message, 1);
        assert.equal(body.docs[0].counter, 1);
        const saved = await readDoc(t, GIZMO_SETTINGS, GIZMO_SETTINGS);
        assert.equal(saved.counter, 1);
        const copy = await callMethod(t, 'POST', 'run_doc_method', { docs: { ...saved, label: 'Unsaved' }, method: 'describe' });
        assert.equal(messageOf(copy), `${GIZMO_SETTINGS}: Unsaved`);
      });

      test('?run_method= on the Single: GET needs read, POST needs write', async () => {
        const url = (method: string) => `${resourceUrl(GIZMO_SETTINGS, GIZMO_SETTINGS)}?run_method=${method}`;
        assert.deepEqual((await t.request({ method: 'GET', url: url('describe'), headers: { authorization: reader } })).json(), {
          data: `${GIZMO_SETTINGS}: Main`,
        });
        const before = Number((await readDoc(t, GIZMO_SETTINGS, GIZMO_SETTINGS)).counter);
        const bumped = await t.request({ method: 'POST', url: url('bump') });
        assert.deepEqual(bumped.json(), { data: before + 1 });
        assertError(await t.request({ method: 'POST', url: url('bump'), headers: { authorization: reader } }), 403, 'PermissionError');
        assertError(await t.request({ method: 'GET', url: url('describe'), headers: { authorization: stranger } }), 403, 'PermissionError');
      });

      test('another name is a 404, an unknown method a 404, a child table a 417', async () => {
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO_SETTINGS, dn: 'other', method: 'describe' }), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: GIZMO_SETTINGS, method: 'fly' }), 404, 'DoesNotExistError');
        assertError(await callMethod(t, 'POST', 'run_doc_method', { dt: 'Has Role', dn: 'x', method: 'whoami' }), 417, 'DataError');
      });
    });
  });
}
