import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createDocType, dataOf, insertDoc, readDoc, resourceUrl, uniqueDocTypeName, type Json } from '../helpers/document-api.js';
import { actAs, createRole, createUser, type ActingUser } from '../helpers/permission-users.js';

// A table write names the rows it keeps; those names must only ever reach this document's rows.
for (const dialect of testDialects()) {
  describe(`child rows belong to their parent (${dialect.name})`, () => {
    let t: TestSite;
    let line: string;
    let book: string;
    let clerk: ActingUser;

    before(async () => {
      t = await startTestSite(dialect);
      line = uniqueDocTypeName('Ledger Line');
      book = uniqueDocTypeName('Ledger');
      const role = uniqueDocTypeName('Ledger Clerk');
      await createRole(t, role);
      await createDocType(t, { name: line, istable: 1, fields: [{ fieldname: 'item', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: book,
        fields: [
          { fieldname: 'title', fieldtype: 'Data' },
          { fieldname: 'lines', fieldtype: 'Table', options: line },
          { fieldname: 'extras', fieldtype: 'Table', options: line },
        ],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
          { role, read: 1, write: 1, create: 1, if_owner: 1 },
        ],
      });
      clerk = await createUser(t, `clerk-${Date.now()}@example.com`, { roles: [role] });
    });
    after(() => t.close());

    test("a row named after another document's row is inserted as new and the other row is untouched", async () => {
      const theirs = await insertDoc(t, book, { title: 'admin ledger', lines: [{ item: 'gold' }] });
      const mine = dataOf(await actAs(t, clerk, { method: 'POST', url: resourceUrl(book), body: { title: 'mine' } }));
      const foreign = theirs.lines[0].name;

      const res = await actAs(t, clerk, {
        method: 'PUT',
        url: resourceUrl(book, mine.name),
        body: { lines: [{ name: foreign, item: 'lead' }] },
      });
      const saved = dataOf(res);
      assert.equal(saved.lines.length, 1);
      assert.equal(saved.lines[0].item, 'lead');
      assert.notEqual(saved.lines[0].name, foreign);
      assert.equal(saved.lines[0].parent, mine.name);

      const after = await readDoc(t, book, theirs.name);
      assert.deepEqual(
        after.lines.map((r: Json) => [r.name, r.item, r.parent]),
        [[foreign, 'gold', theirs.name]],
      );
    });

    test('a row name from another table of the same document becomes a new row there', async () => {
      const doc = await insertDoc(t, book, { title: 'two tables', lines: [{ item: 'a' }] });
      const moved = doc.lines[0].name;
      const saved = dataOf(await t.request({ method: 'PUT', url: resourceUrl(book, doc.name), body: { extras: [{ name: moved, item: 'b' }] } }));
      assert.deepEqual(
        saved.lines.map((r: Json) => [r.name, r.item, r.parentfield]),
        [[moved, 'a', 'lines']],
      );
      assert.equal(saved.extras.length, 1);
      assert.notEqual(saved.extras[0].name, moved);
      assert.equal(saved.extras[0].parentfield, 'extras');
    });

    test("a client cannot set a row's owner, creation or parent; a kept row keeps its stored ones", async () => {
      const doc = dataOf(
        await actAs(t, clerk, {
          method: 'POST',
          url: resourceUrl(book),
          body: { title: 'forged', lines: [{ item: 'x', owner: 'Administrator', creation: '2001-01-01 00:00:00', parent: 'elsewhere' }] },
        }),
      );
      const row = doc.lines[0];
      assert.equal(row.owner, clerk.name);
      assert.notEqual(row.creation, '2001-01-01 00:00:00');
      assert.equal(row.parent, doc.name);

      const saved = dataOf(
        await actAs(t, clerk, {
          method: 'PUT',
          url: resourceUrl(book, doc.name),
          body: { lines: [{ ...row, item: 'y', owner: 'Administrator', creation: '2001-01-01 00:00:00' }] },
        }),
      );
      assert.deepEqual([saved.lines[0].name, saved.lines[0].item], [row.name, 'y']);
      assert.equal(saved.lines[0].owner, clerk.name);
      assert.equal(saved.lines[0].creation, row.creation);
    });
  });
}
