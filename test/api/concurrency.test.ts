import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, insertDoc, readDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { callMethod } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Optimistic concurrency (reference §8 save step 2, API.md pinned details): saves fired at the same
 * time through the HTTP app. Saves carrying the same `modified` race and exactly one wins; saves
 * without `modified` are serialised and all succeed, the last one's values stay.
 */

const MEMO = 'Memo';
const DEAL = 'Deal';
const ROUNDS = 3;

for (const dialect of testDialects()) {
  describe(`concurrent saves (${dialect.name})`, () => {
    let t: TestSite;
    const put = (doctype: string, name: string, body: Json) => t.request({ method: 'PUT', url: resourceUrl(doctype, name), body });

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: MEMO, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      await createDocType(t, {
        name: DEAL,
        is_submittable: 1,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager', submit: 1, cancel: 1, amend: 1 }],
      });
    });
    after(() => t.close());

    /** The one 200 among `responses` (failing unless there is exactly one) and the refused others. */
    function oneWinner(responses: LightMyRequestResponse[]): { winner: LightMyRequestResponse; losers: LightMyRequestResponse[] } {
      const winners = responses.filter((r) => r.statusCode === 200);
      assert.equal(winners.length, 1, `exactly one save wins: ${responses.map((r) => `${r.statusCode} ${r.body.slice(0, 200)}`).join(' | ')}`);
      return { winner: winners[0], losers: responses.filter((r) => r !== winners[0]) };
    }

    test('two saves with the same modified: one wins, the other is 417 TimestampMismatchError', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const doc = await insertDoc(t, MEMO, { title: 'start' });
        const responses = await Promise.all([
          put(MEMO, doc.name, { title: 'first', modified: doc.modified }),
          put(MEMO, doc.name, { title: 'second', modified: doc.modified }),
        ]);
        const { winner, losers } = oneWinner(responses);
        for (const loser of losers) assertError(loser, 417, 'TimestampMismatchError');
        const stored = await readDoc(t, MEMO, doc.name);
        assert.equal(stored.title, winner.json().data.title);
        assert.equal(stored.modified, winner.json().data.modified);
      }
    });

    test('PUT and fw.client.save racing with the same modified: still exactly one wins', async () => {
      const doc = await readDoc(t, MEMO, (await insertDoc(t, MEMO, { title: 'start' })).name);
      const responses = await Promise.all([
        put(MEMO, doc.name, { title: 'by put', modified: doc.modified }),
        callMethod(t, 'POST', 'fw.client.save', { doc: { ...doc, title: 'by save' } }),
        put(MEMO, doc.name, { title: 'by put again', modified: doc.modified }),
      ]);
      const { losers } = oneWinner(responses);
      for (const loser of losers) assertError(loser, 417, 'TimestampMismatchError');
    });

    test('two saves without modified both succeed and the last one wins', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const doc = await insertDoc(t, MEMO, { title: 'start' });
        const [a, b] = await Promise.all([put(MEMO, doc.name, { title: 'A' }), put(MEMO, doc.name, { title: 'B' })]);
        const first = dataOf(a);
        const second = dataOf(b);
        assert.notEqual(first.modified, second.modified, 'each save gets its own modified');
        const last = first.modified > second.modified ? first : second;
        const stored = await readDoc(t, MEMO, doc.name);
        assert.equal(stored.title, last.title);
        assert.equal(stored.modified, last.modified);
      }
    });

    test('two submits of one draft with the same modified: one submits, the other is refused', async () => {
      const doc = await insertDoc(t, DEAL, { title: 'deal' });
      const responses = await Promise.all([put(DEAL, doc.name, { docstatus: 1, modified: doc.modified }), callMethod(t, 'POST', 'fw.client.submit', { doc })]);
      const { losers } = oneWinner(responses);
      assertError(losers[0], 417, 'TimestampMismatchError');
      assert.equal((await readDoc(t, DEAL, doc.name)).docstatus, 1);
    });
  });
}
