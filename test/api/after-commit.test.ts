import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CommittedDocEvent } from '../../src/documents/hooks.js';
import { ValidationError } from '../../src/errors/index.js';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, resourceUrl, storedCount, storedRow, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The after-commit seam (docs/architecture.md, "After a commit"): committed document events reach
 * their listeners once the request's transaction committed, in the order they fired, for every
 * path that writes (single requests and bulk methods), and never for a write that rolled back.
 */

const NOTE = 'Commit Note';

for (const dialect of testDialects()) {
  describe(`committed document events (${dialect.name})`, () => {
    let t: TestSite;
    let heard: { event: CommittedDocEvent; storedThen: Json | undefined }[] = [];

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: NOTE,
        autoname: 'field:title',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
          { fieldname: 'body', label: 'Body', fieldtype: 'Data' },
        ],
      });
      // Refuses late in the pipeline, after on_update already fired inside the transaction.
      t.site.hooks.on(NOTE, 'on_change', async ({ doc }, next) => {
        if (doc.body === 'refuse late') throw new ValidationError('refused after on_update');
        await next();
      });
      for (const event of ['after_insert', 'on_update', 'on_trash', 'after_rename'] as const) {
        t.site.hooks.onCommitted(NOTE, event, async (e) => {
          // What the listener can read from outside the request's transaction: the committed state.
          heard.push({ event: e, storedThen: await storedRow(t, NOTE, e.name) });
        });
      }
    });
    beforeEach(() => {
      heard = [];
    });
    after(() => t.close());

    const summary = () => heard.map(({ event }) => `${event.event} ${event.name}`);

    test('an insert is heard after its commit, in the order the events fired, with the committed row visible', async () => {
      await insertDoc(t, NOTE, { title: 'first', body: 'x' });
      assert.deepEqual(summary(), ['after_insert first', 'on_update first']);
      assert.equal(heard[0]?.storedThen?.body, 'x');
      assert.equal(heard[0]?.event.user, 'Administrator');
      assert.equal(heard[0]?.event.doctype, NOTE);
    });

    test('a write refused after its events fired inside the transaction is never heard', async () => {
      const res = await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'late', body: 'refuse late' } });
      assert.equal(res.statusCode, 417);
      assert.deepEqual(summary(), []);
      assert.equal(await storedRow(t, NOTE, 'late'), undefined);
    });

    test('bulk_update: only the items whose savepoint held are heard', async () => {
      await insertDoc(t, NOTE, { title: 'bulk-a' });
      await insertDoc(t, NOTE, { title: 'bulk-b' });
      heard = [];
      const out = messageOf(
        await callMethod(t, 'POST', 'frappe.client.bulk_update', {
          docs: [
            { doctype: NOTE, docname: 'bulk-a', body: 'ok' },
            { doctype: NOTE, docname: 'bulk-b', body: 'refuse late' },
          ],
        }),
      );
      assert.equal(out.failed_docs.length, 1);
      assert.deepEqual(summary(), ['on_update bulk-a']);
      assert.equal(heard[0]?.storedThen?.body, 'ok');
    });

    test('a rename is heard under the new name with the old one, a delete after the row is gone', async () => {
      await insertDoc(t, NOTE, { title: 'old-name' });
      heard = [];
      messageOf(await callMethod(t, 'POST', 'frappe.client.rename_doc', { doctype: NOTE, old_name: 'old-name', new_name: 'new-name' }));
      assert.deepEqual(summary(), ['after_rename new-name']);
      assert.equal(heard[0]?.event.oldName, 'old-name');
      heard = [];
      const res = await t.request({ method: 'DELETE', url: resourceUrl(NOTE, 'new-name') });
      assert.equal(res.statusCode, 202);
      assert.deepEqual(summary(), ['on_trash new-name']);
      assert.equal(heard[0]?.storedThen, undefined);
    });

    test('a failing listener is logged and neither undoes the commit nor silences the others', async () => {
      const logged: unknown[] = [];
      const previous = t.site.logger;
      t.site.logger = { error: (obj) => void logged.push(obj) };
      let failures = 0;
      t.site.hooks.onCommitted(NOTE, 'after_insert', (e) => {
        if (e.name !== 'survives') return;
        failures += 1;
        throw new Error('listener broke');
      });
      try {
        const before = await storedCount(t, NOTE);
        await insertDoc(t, NOTE, { title: 'survives' });
        assert.equal(await storedCount(t, NOTE), before + 1);
        assert.deepEqual(summary(), ['after_insert survives', 'on_update survives']);
        assert.equal(failures, 1);
        assert.equal(logged.length, 1);
      } finally {
        t.site.logger = previous;
      }
    });

    test('reads fire nothing', async () => {
      await insertDoc(t, NOTE, { title: 'read-me' });
      heard = [];
      const res = await t.request({ method: 'GET', url: resourceUrl(NOTE, 'read-me') });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(summary(), []);
    });
  });
}
