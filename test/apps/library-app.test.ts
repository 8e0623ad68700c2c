import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { testDialects } from '../helpers/dialects.js';
import { assertError, dataOf, insertDoc, readDoc, resourceUrl, serverMessages, storedCount, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { assertMatchesDescription, fetchDescription } from '../helpers/openapi-check.js';
import { actAs, createRole, createUser, query, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { LIBRARY_APP, openWithApps } from './app-site.js';

/*
 * The example app (examples/library-app) on a site that lists it: its DocTypes, hooks, permission
 * hook and methods, all reached over HTTP as a client would.
 */

for (const dialect of testDialects()) {
  describe(`the library example app (${dialect.name})`, () => {
    let plain: TestSite;
    let t: TestSite;
    let librarian: ActingUser;
    let reader: ActingUser;
    let manager: ActingUser;

    const book = (body: Json) => insertDoc(t, 'Book', body);

    before(async () => {
      plain = await startTestSite(dialect);
      t = await openWithApps(plain, [LIBRARY_APP]);
      await createRole(t, 'Librarian');
      librarian = await createUser(t, 'librarian@example.com', { roles: ['Librarian'] });
      reader = await createUser(t, 'reader@example.com');
      manager = await createUser(t, 'manager@example.com', { roles: ['System Manager'] });
    });
    after(async () => {
      await t.close();
      await plain.close();
    });

    test("installs the app's DocTypes on opening, stored as owned by the app", async () => {
      const def = await readDoc(t, 'DocType', 'Book');
      assert.equal(def.module, 'library');
      assert.equal(def.custom, 0);
      assert.deepEqual(
        def.fields.map((f: Json) => f.fieldname),
        ['title', 'author', 'isbn', 'pages', 'status', 'lent_to', 'loans'],
      );
      assert.equal((await readDoc(t, 'DocType', 'Book Loan')).istable, 1);
    });

    test('serves Book documents through /api/resource with the field rules of its JSON', async () => {
      const dune = await book({ title: 'Dune', author: 'Frank Herbert', isbn: '978-0441013593', pages: 412 });
      assert.equal(dune.status, 'Available');
      assert.equal((await readDoc(t, 'Book', dune.name)).title, 'Dune');
      assertError(await t.request({ method: 'POST', url: resourceUrl('Book'), body: { author: 'Nobody' } }), 417, 'MandatoryError');
      assertError(await t.request({ method: 'POST', url: resourceUrl('Book'), body: { title: 'Short', pages: -1 } }), 417, 'NonNegativeError');
      assertError(await t.request({ method: 'POST', url: resourceUrl('Book'), body: { title: 'Copy', isbn: '978-0441013593' } }), 417, 'UniqueValidationError');
    });

    test('refuses changing or deleting the DocType through the API, since the app owns it', async () => {
      const def = await readDoc(t, 'DocType', 'Book');
      assertError(await t.request({ method: 'PUT', url: resourceUrl('DocType', 'Book'), body: { description: 'mine now' } }), 417, 'ValidationError');
      assertError(await t.request({ method: 'DELETE', url: resourceUrl('DocType', 'Book') }), 417, 'ValidationError');
      assert.equal((await readDoc(t, 'DocType', 'Book')).modified, def.modified);
    });

    test("runs the app's validate hook: a Lent book without Lent To is refused with 417 and not stored", async () => {
      const count = await storedCount(t, 'Book');
      const body = assertError(await t.request({ method: 'POST', url: resourceUrl('Book'), body: { title: 'Emma', status: 'Lent' } }), 417, 'ValidationError');
      assert.deepEqual(serverMessages(body), ['Emma is marked Lent: set Lent To']);
      assert.equal(await storedCount(t, 'Book'), count);
    });

    test("runs the app's after_insert hook in the same write: the new book's owner gets a ToDo", async () => {
      const ulysses = await insertDoc(t, 'Book', { title: 'Ulysses' });
      const todos = dataOf(
        await t.request({
          method: 'GET',
          url: resourceUrl('ToDo') + query({ fields: ['description', 'allocated_to', 'reference_type'], filters: { reference_name: ulysses.name } }),
        }),
      );
      assert.deepEqual(todos, [{ description: 'Put Ulysses on the shelf', allocated_to: 'Administrator', reference_type: 'Book' }]);
    });

    test('answers library.api.available_books under /api/method and /api/v2/method, GET only', async () => {
      await book({ title: 'Anna Karenina' });
      const titles = messageOf(await callMethod(t, 'GET', 'library.api.available_books')) as string[];
      assert.ok(titles.includes('Anna Karenina') && titles.includes('Dune'), JSON.stringify(titles));
      assert.deepEqual(titles, [...titles].sort());
      const v2 = await t.request({ method: 'GET', url: '/api/v2/method/library.api.available_books' });
      assert.equal(v2.statusCode, 200, v2.body);
      assert.deepEqual(v2.json().data, titles);
      assert.equal((await callMethod(t, 'POST', 'library.api.available_books')).statusCode, 403);
    });

    test('library.api.lend lends a book through the document service, recording the loan, and refuses lending it twice', async () => {
      const emma = await book({ title: 'Emma' });
      const lent = messageOf(await callMethod(t, 'POST', 'library.api.lend', { book: emma.name, user: reader.name }));
      assert.equal(lent.status, 'Lent');
      const stored = await readDoc(t, 'Book', emma.name);
      assert.equal(stored.lent_to, reader.name);
      assert.deepEqual(
        stored.loans.map((l: Json) => [l.lent_to, typeof l.lent_on, l.returned_on ?? null]),
        [[reader.name, 'string', null]],
      );
      assert.ok(!(messageOf(await callMethod(t, 'GET', 'library.api.available_books')) as string[]).includes('Emma'));
      const again = assertError(await callMethod(t, 'POST', 'library.api.lend', { book: emma.name, user: manager.name }), 417, 'ValidationError');
      assert.deepEqual(serverMessages(again), [`Emma is already lent to ${reader.name}`]);
      assertError(await callMethod(t, 'POST', 'library.api.lend', { book: emma.name }), 417, 'FrappeTypeError');
    });

    test('the return_book document method makes a lent book available and closes its loan', async () => {
      const persuasion = await book({ title: 'Persuasion' });
      messageOf(await callMethod(t, 'POST', 'library.api.lend', { book: persuasion.name, user: reader.name }));
      messageOf(await callMethod(t, 'POST', 'run_doc_method', { dt: 'Book', dn: persuasion.name, method: 'return_book' }));
      const stored = await readDoc(t, 'Book', persuasion.name);
      assert.equal(stored.status, 'Available');
      // Empty fields are left out of the answer.
      assert.equal(stored.lent_to ?? null, null);
      assert.match(String(stored.loans[0].returned_on), /^\d{4}-\d\d-\d\d$/);
    });

    test("the app's has_permission hook stops a Librarian deleting a lent book; a System Manager may", async () => {
      const lentOne = await book({ title: 'Middlemarch', status: 'Lent', lent_to: reader.name });
      const shelved = await book({ title: 'Walden' });
      assertError(await actAs(t, librarian, { method: 'DELETE', url: resourceUrl('Book', lentOne.name) }), 403, 'PermissionError');
      assert.equal((await readDoc(t, 'Book', lentOne.name)).title, 'Middlemarch');
      assert.equal((await actAs(t, librarian, { method: 'DELETE', url: resourceUrl('Book', shelved.name) })).statusCode, 202);
      assert.equal((await actAs(t, manager, { method: 'DELETE', url: resourceUrl('Book', lentOne.name) })).statusCode, 202);
    });

    test('a user with role All reads books and lists available ones but may not create one', async () => {
      const titles = messageOf(await callMethod(t, 'GET', 'library.api.available_books', {}, reader.auth)) as string[];
      assert.ok(titles.includes('Dune'));
      assertError(await actAs(t, reader, { method: 'POST', url: resourceUrl('Book'), body: { title: 'Mine' } }), 403, 'PermissionError');
    });

    test("the API description holds the app's DocTypes and methods, and stays valid", async () => {
      const spec = await fetchDescription(t);
      assert.ok((await validate(structuredClone(spec) as never)).valid);
      assert.ok(spec.paths['/api/resource/Book'].post);
      assert.equal(spec.components.schemas.Book.properties.loans.items.$ref, '#/components/schemas/BookLoan');
      const lend = spec.paths['/api/method/library.api.lend'].post;
      assert.match(lend.summary, /^Lends a book/);
      assert.deepEqual(lend.requestBody.content['application/json'].schema.required, ['book', 'user']);
      assert.deepEqual(Object.keys(spec.paths['/api/method/library.api.available_books']), ['get']);
      const titles = await callMethod(t, 'GET', 'library.api.available_books', {}, reader.auth);
      assertMatchesDescription(spec, titles, 'GET', '/api/method/library.api.available_books');
      const readerSpec = await fetchDescription(t, reader.auth);
      assert.equal(readerSpec.paths['/api/resource/Book'].post, undefined, 'a reader may not create books');
    });

    test('a view of the site opened before the app was listed answers none of its methods', async () => {
      assertError(await callMethod(plain, 'GET', 'library.api.available_books'), 404, 'DoesNotExistError');
    });
  });
}
