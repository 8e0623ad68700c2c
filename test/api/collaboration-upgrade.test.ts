import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, uniqueDocTypeName } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * A site made by an fw without the collaboration columns (docs/collaboration.md "Columns"): the
 * first open by this fw adds them to custom DocTypes' tables too, so assignments and tags work at
 * once, without `fw migrate`.
 */

for (const dialect of testDialects()) {
  describe(`collaboration columns on an older site (${dialect.name})`, () => {
    let t: TestSite;
    const OLD = uniqueDocTypeName('Old Table');
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('the first open after the upgrade adds the columns to a custom table that lacks them', async () => {
      await createDocType(t, { name: OLD, fields: [{ fieldname: 'title', fieldtype: 'Data' }] });
      const doc = await insertDoc(t, OLD, { title: 'kept' });
      const { db } = t.site;
      // What an older fw left behind: no collaboration columns, and its own core fingerprint.
      await db.transaction(async (q) => {
        for (const column of ['_user_tags', '_comments', '_assign', '_liked_by']) {
          await q.run(db.dialect.builder.schema.alterTable(`tab${OLD}`).dropColumn(column).compile());
        }
        await t.site.metas.writeState(q, 'core_fingerprint', 'an older fw');
      });
      assert.ok(!(await db.read((q) => db.dialect.listColumns(q, `tab${OLD}`))).some((c) => c.name === '_assign'));
      const reopened = await reopenWithConfig(t, {});
      try {
        const columns = (await db.read((q) => db.dialect.listColumns(q, `tab${OLD}`))).map((c) => c.name);
        for (const column of ['_user_tags', '_comments', '_assign', '_liked_by']) assert.ok(columns.includes(column), column);
        const res = await reopened.app.inject({
          method: 'POST',
          url: '/api/method/fw.desk.doctype.tag.tag.add_tag',
          payload: { tag: 'after-upgrade', dt: OLD, dn: doc.name },
          headers: { authorization: t.adminAuth },
        });
        assert.equal(res.statusCode, 200, res.body);
      } finally {
        await reopened.close();
      }
      assert.deepEqual(messageOf(await callMethod(t, 'GET', 'fw.desk.doctype.tag.tag.get_tags', { doctype: OLD })), ['after-upgrade']);
    });
  });
}
