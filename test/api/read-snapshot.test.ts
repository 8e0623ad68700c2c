import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database, Queryable, SqlStatement } from '../../src/storage/database.js';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, insertDoc, readDoc, resourceUrl, uniqueDocTypeName } from '../helpers/document-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/**
 * A document GET is one read unit with one snapshot (docs/architecture.md "Units of work"): a write
 * that commits between the statement reading the parent row and the one reading its child rows is
 * seen by neither, so a client never gets a parent of one version with rows of another.
 */
for (const dialect of testDialects()) {
  describe(`read snapshots: ${dialect.name}`, () => {
    let t: TestSite;
    const line = uniqueDocTypeName('Snap Line');
    const order = uniqueDocTypeName('Snap Order');

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: line, istable: 1, fields: [{ fieldname: 'qty', fieldtype: 'Int' }] });
      await createDocType(t, {
        name: order,
        autoname: 'hash',
        fields: [
          { fieldname: 'line_count', fieldtype: 'Int' },
          { fieldname: 'lines', fieldtype: 'Table', options: line },
        ],
      });
    });
    after(() => t.close());

    /**
     * Runs `during` inside the read unit that first reads `order`'s own table, right after the statement that reads it
     * (the test's only look at SQL text: it places the concurrent write, it decides nothing).
     */
    function interleave(during: () => Promise<void>): void {
      const db = t.site.db as Database & { read: Database['read'] };
      const read = db.read as <T>(work: (q: Queryable) => Promise<T>) => Promise<T>;
      let done = false;
      const restore = () => Reflect.deleteProperty(db, 'read');
      Object.defineProperty(db, 'read', {
        configurable: true,
        value: <T>(work: (q: Queryable) => Promise<T>) =>
          read
            .call(db, (q: Queryable) => {
              const wrapped: Queryable = {
                all: async <R>(s: SqlStatement) => {
                  const rows = await q.all<R>(s);
                  if (!done && s.sql.includes(`"tab${order}"`)) {
                    done = true;
                    await during();
                  }
                  return rows;
                },
                run: (s) => q.run(s),
                iterate: (s) => q.iterate(s),
              };
              return work(wrapped);
            })
            .finally(() => done && restore()),
      });
    }

    test('a write committed between the parent and child reads of a GET is seen by neither', async () => {
      const doc = await insertDoc(t, order, { line_count: 2, lines: [{ qty: 1 }, { qty: 1 }] });
      let written: unknown;
      interleave(async () => {
        const res = await t.request({
          method: 'PUT',
          url: resourceUrl(order, doc.name),
          body: { line_count: 3, lines: [{ qty: 1 }, { qty: 1 }, { qty: 1 }] },
        });
        written = dataOf(res).line_count;
      });
      const seen = await readDoc(t, order, doc.name);
      assert.equal(written, 3, 'the concurrent write committed while the GET was running');
      assert.equal(seen.line_count, 2);
      assert.equal(seen.lines.length, 2, 'the child rows come from the same snapshot as the parent');
      const after = await readDoc(t, order, doc.name);
      assert.deepEqual([after.line_count, after.lines.length], [3, 3]);
    });
  });
}
