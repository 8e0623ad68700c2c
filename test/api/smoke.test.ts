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
      const { body } = assertV1Error(res, 500, 'Exception');
      assert.match(String(body.request_id), /^[0-9a-f-]{36}$/);
      assert.ok(body.exception.includes(String(body.request_id)), 'the message names the request id');
      assert.ok(!res.body.includes('secret detail'), 'the error message does not leak');
      assert.ok(!leaksInternals(res.body), `no stack or path leaks: ${res.body}`);
    });
  });
}
