import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../src/errors/index.js';
import { testDialects } from '../helpers/dialects.js';
import { decodeServerMessages as decodeErrorMessages } from '../helpers/error-envelope.js';
import { createDocType, dataOf, insertDoc, resourceUrl, v2Url, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Messages for the user on success (docs/api.md "Messages"): what methods and controllers add
 * with ctx.messages.add reaches v1 answers as `_server_messages` (a JSON list of JSON texts) and
 * v2 answers as `messages` (a list of objects); an answer without any carries neither key.
 */

const NOTE = 'Msg Note';

/** `_server_messages` of a success: a JSON text of a list of JSON texts, each one message object. */
function decodeServerMessages(raw: unknown): Json[] {
  assert.equal(typeof raw, 'string', '_server_messages is a JSON text');
  const outer = JSON.parse(raw as string) as unknown[];
  assert.ok(Array.isArray(outer));
  return outer.map((entry) => {
    assert.equal(typeof entry, 'string', 'each entry is itself JSON text');
    return JSON.parse(entry as string) as Json;
  });
}

for (const dialect of testDialects()) {
  describe(`messages for the user (${dialect.name})`, () => {
    let t: TestSite;

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, { name: NOTE, fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }] });
      t.site.methods.register('msgtest.greet', async ({ ctx, args }) => {
        ctx.messages.add(`Hello ${String(args.who)}`);
        ctx.messages.add({ message: 'Saved', title: 'Done', indicator: 'green', alert: true });
        return 'ok';
      });
      t.site.methods.register('msgtest.fail', async ({ ctx }) => {
        ctx.messages.add('lost');
        throw new ValidationError('refused');
      });
      t.site.hooks.on(NOTE, 'before_insert', async ({ ctx, doc }, next) => {
        ctx.messages.add({ message: `Inserting ${String(doc.title)}`, indicator: 'blue' });
        await next();
      });
      t.site.methods.registerDocMethod(NOTE, 'ping', async ({ ctx }) => {
        ctx.messages.add('pinged');
        return 'pong';
      });
    });
    after(() => t.close());

    test('a v1 method answer carries _server_messages: a JSON list of JSON-encoded message objects', async () => {
      const res = await callMethod(t, 'POST', 'msgtest.greet', { who: 'Ann' });
      assert.equal(messageOf(res), 'ok');
      const raw = res.json()._server_messages;
      assert.equal(typeof raw, 'string');
      const list = JSON.parse(raw) as unknown[];
      assert.ok(list.every((m) => typeof m === 'string'));
      assert.deepEqual(decodeServerMessages(raw), [{ message: 'Hello Ann' }, { message: 'Saved', title: 'Done', indicator: 'green', alert: true }]);
    });

    test('v2 answers carry messages as a list of objects', async () => {
      const res = await t.request({ method: 'POST', url: '/api/v2/method/msgtest.greet', body: { who: 'Bo' } });
      assert.equal(dataOf(res), 'ok');
      assert.deepEqual(res.json().messages, [{ message: 'Hello Bo' }, { message: 'Saved', title: 'Done', indicator: 'green', alert: true }]);
      assert.equal('_server_messages' in res.json(), false);
    });

    test('controllers add messages to resource writes (v1 and v2) and document methods', async () => {
      const v1 = await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'one' } });
      assert.deepEqual(decodeServerMessages(v1.json()._server_messages), [{ message: 'Inserting one', indicator: 'blue' }]);
      const v2 = await t.request({ method: 'POST', url: v2Url(NOTE), body: { title: 'two' } });
      assert.deepEqual(v2.json().messages, [{ message: 'Inserting two', indicator: 'blue' }]);
      const name = String(dataOf(v2).name);
      const method = await t.request({ method: 'GET', url: `${v2Url(NOTE, name)}/method/ping` });
      assert.deepEqual(method.json().messages, [{ message: 'pinged' }]);
      const runMethod = await t.request({ method: 'GET', url: `${resourceUrl(NOTE, name)}?run_method=ping` });
      assert.deepEqual(decodeServerMessages(runMethod.json()._server_messages), [{ message: 'pinged' }]);
    });

    test('answers without messages carry neither key; a failed call does not report its success messages', async () => {
      const doc: Json = await insertDoc(t, NOTE, { title: 'x' });
      const read = await t.request({ method: 'GET', url: resourceUrl(NOTE, String(doc.name)) });
      assert.equal('_server_messages' in read.json(), false);
      const readV2 = await t.request({ method: 'GET', url: v2Url(NOTE, String(doc.name)) });
      assert.equal('messages' in readV2.json(), false);
      const failed = await callMethod(t, 'POST', 'msgtest.fail');
      assert.equal(failed.statusCode, 417);
      assert.deepEqual(
        decodeErrorMessages(failed.json()._server_messages).map((m) => m.message),
        ['refused'],
      );
    });
  });
}
