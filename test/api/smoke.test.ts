import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error, leaksInternals } from '../helpers/error-envelope.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

for (const dialect of testDialects()) {
  describe(`smoke (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('ping answers pong to anyone', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/ping', anonymous: true });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { message: 'pong' });
    });

    test('a ToDo can be created and read back', async () => {
      const created = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'Buy milk' } });
      assert.equal(created.statusCode, 200, created.body);
      const doc = created.json().data;
      assert.equal(doc.status, 'Open');
      const read = await t.request({ method: 'GET', url: `/api/resource/ToDo/${doc.name}` });
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().data.description, 'Buy milk');
    });

    test('an unexpected exception in a handler is a 500 with exc_type and a request id, leaking neither message nor stack', async () => {
      t.site.methods.register('fw.test_smoke.crash', async () => {
        throw new TypeError('secret detail of /srv/app/src/thing.ts:12');
      });
      const res = await t.request({ method: 'POST', url: '/api/method/fw.test_smoke.crash', body: {} });
      assert.equal(res.statusCode, 500, res.body);
      const body = res.json();
      assert.equal(body.exc_type, 'Exception');
      assert.match(String(body.request_id), /^[0-9a-f-]{36}$/);
      assert.ok(String(body.exception).includes(String(body.request_id)), 'the message names the request id');
      assert.ok(!res.body.includes('secret detail'), 'the error message does not leak');
      assert.ok(!leaksInternals(res.body), `no stack or path leaks: ${res.body}`);
    });

    test('an unexpected error answers no _server_messages (v1) and no messages (v2): no code printed one, even when a message was added before the crash', async () => {
      t.site.methods.register('fw.test_smoke.crash_after_message', async ({ ctx }) => {
        ctx.messages.add('half done');
        throw new RangeError('boom');
      });
      const v1 = await t.request({ method: 'POST', url: '/api/method/fw.test_smoke.crash_after_message', body: {} });
      assert.equal(v1.statusCode, 500, v1.body);
      assert.deepEqual(Object.keys(v1.json()).sort(), ['exc', 'exc_type', 'exception', 'request_id']);
      const v2 = await t.request({ method: 'POST', url: '/api/v2/method/fw.test_smoke.crash_after_message', body: {} });
      assert.equal(v2.statusCode, 500, v2.body);
      assert.deepEqual(Object.keys(v2.json()).sort(), ['errors', 'request_id']);
      assert.ok(!v1.body.includes('half done') && !v2.body.includes('half done'), 'the rolled-back message is not sent');
    });

    test('a refusal the code raised still carries its message in _server_messages', async () => {
      const res = await t.request({ method: 'GET', url: '/api/resource/ToDo/no-such-todo' });
      const { messages } = assertV1Error(res, 404, 'DoesNotExistError');
      assert.match(messages[0].message, /no-such-todo/);
    });
  });
}
