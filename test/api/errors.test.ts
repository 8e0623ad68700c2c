import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error, assertV2Error, leaksInternals } from '../helpers/error-envelope.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestRequest, type TestSite } from '../helpers/test-site.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** One request that must fail, and how (API.md "Errors" and "Pinned details"). */
interface ErrorCase {
  readonly name: string;
  readonly request: TestRequest;
  readonly status: number;
  readonly excType: string;
}

const v1Cases: readonly ErrorCase[] = [
  {
    name: 'an unknown route is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/api/no-such-thing' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a path outside /api that matches nothing is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/definitely/not/here' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  { name: '/api/rest is a 404', request: { method: 'GET', url: '/api/rest' }, status: 404, excType: 'DoesNotExistError' },
  {
    name: 'an unknown method is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/api/method/fw.no_such.module.method' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'an unknown method under the frappe prefix is a 404 too',
    request: { method: 'POST', url: '/api/method/frappe.no_such_method', body: {} },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'PATCH on a v1 document is a 405 MethodNotAllowed',
    request: { method: 'PATCH', url: '/api/resource/ToDo/x', body: { description: 'y' } },
    status: 405,
    excType: 'MethodNotAllowed',
  },
  {
    name: 'PATCH on a v1 document under /api/v1 is a 405 MethodNotAllowed',
    request: { method: 'PATCH', url: '/api/v1/resource/ToDo/x', body: { description: 'y' } },
    status: 405,
    excType: 'MethodNotAllowed',
  },
  {
    name: 'PUT on a v1 collection is a 405 MethodNotAllowed',
    request: { method: 'PUT', url: '/api/resource/ToDo', body: { description: 'y' } },
    status: 405,
    excType: 'MethodNotAllowed',
  },
  {
    name: 'DELETE on a v1 collection is a 405 MethodNotAllowed',
    request: { method: 'DELETE', url: '/api/resource/ToDo' },
    status: 405,
    excType: 'MethodNotAllowed',
  },
  {
    name: 'PATCH on a method is a 403 PermissionError (verb not allowed for the method)',
    request: { method: 'PATCH', url: '/api/method/ping', body: {} },
    status: 403,
    excType: 'PermissionError',
  },
  {
    name: 'malformed JSON is a 400 InvalidRequestBody',
    request: { method: 'POST', url: '/api/resource/ToDo', body: '{"description": "unterminated', headers: JSON_TYPE },
    status: 400,
    excType: 'InvalidRequestBody',
  },
  {
    name: 'malformed JSON on a method call is a 400 InvalidRequestBody',
    request: { method: 'POST', url: '/api/method/ping', body: '{usr: Administrator}', headers: JSON_TYPE },
    status: 400,
    excType: 'InvalidRequestBody',
  },
  ...['42', '"x"', 'null', 'true'].map(
    (scalar): ErrorCase => ({
      name: `a JSON scalar body ${scalar} is a 400 InvalidRequestBody`,
      request: { method: 'POST', url: '/api/resource/ToDo', body: scalar, headers: JSON_TYPE },
      status: 400,
      excType: 'InvalidRequestBody',
    }),
  ),
  {
    name: 'a JSON null body on a method call is a 400 InvalidRequestBody',
    request: { method: 'POST', url: '/api/method/ping', body: 'null', headers: JSON_TYPE },
    status: 400,
    excType: 'InvalidRequestBody',
  },
  {
    name: 'a GET of a missing ToDo is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/api/resource/ToDo/no-such-todo' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a GET of a document of an unknown DocType is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/api/resource/No Such DocType/x' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a list of an unknown DocType is a 404 DoesNotExistError',
    request: { method: 'GET', url: '/api/resource/No%20Such%20DocType' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a PUT of a missing ToDo is a 404 DoesNotExistError',
    request: { method: 'PUT', url: '/api/resource/ToDo/no-such-todo', body: { description: 'x' } },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a DELETE of a missing ToDo is a 404 DoesNotExistError',
    request: { method: 'DELETE', url: '/api/resource/ToDo/no-such-todo' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'Guest listing ToDo is a 403 PermissionError, not a 401',
    request: { method: 'GET', url: '/api/resource/ToDo', anonymous: true },
    status: 403,
    excType: 'PermissionError',
  },
  {
    name: 'Guest reading a ToDo is a 403 PermissionError, so existence never leaks',
    request: { method: 'GET', url: '/api/resource/ToDo/no-such-todo', anonymous: true },
    status: 403,
    excType: 'PermissionError',
  },
  {
    name: 'Guest creating a ToDo is a 403 PermissionError',
    request: { method: 'POST', url: '/api/resource/ToDo', body: { description: 'x' }, anonymous: true },
    status: 403,
    excType: 'PermissionError',
  },
  {
    name: 'a ToDo without its required description is a 417 MandatoryError',
    request: { method: 'POST', url: '/api/resource/ToDo', body: { status: 'Open' } },
    status: 417,
    excType: 'MandatoryError',
  },
];

const v2Cases: readonly ErrorCase[] = [
  {
    name: 'a v2 read of a missing ToDo is a 404 in errors[]',
    request: { method: 'GET', url: '/api/v2/document/ToDo/no-such-todo' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'a v2 delete of a missing ToDo is a 404 in errors[]',
    request: { method: 'DELETE', url: '/api/v2/document/ToDo/no-such-todo' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'an unknown v2 method is a 404 in errors[]',
    request: { method: 'GET', url: '/api/v2/method/fw.no_such_method' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'an unknown v2 route is a 404 in errors[]',
    request: { method: 'GET', url: '/api/v2/no-such-thing' },
    status: 404,
    excType: 'DoesNotExistError',
  },
  {
    name: 'Guest listing ToDo through v2 is a 403 in errors[]',
    request: { method: 'GET', url: '/api/v2/document/ToDo', anonymous: true },
    status: 403,
    excType: 'PermissionError',
  },
  {
    name: 'malformed JSON on v2 is a 400 in errors[]',
    request: { method: 'POST', url: '/api/v2/document/ToDo', body: '{', headers: JSON_TYPE },
    status: 400,
    excType: 'InvalidRequestBody',
  },
  {
    name: 'a v2 ToDo without its required description is a 417 in errors[]',
    request: { method: 'POST', url: '/api/v2/document/ToDo', body: { status: 'Open' } },
    status: 417,
    excType: 'MandatoryError',
  },
];

/** A JSON object body just over `bytes` long. */
function jsonBodyOver(bytes: number): string {
  return JSON.stringify({ description: 'x'.repeat(bytes) });
}

for (const dialect of testDialects()) {
  describe(`error envelope (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    describe('v1 errors carry exc_type, exception, exc and _server_messages', () => {
      for (const c of v1Cases) {
        test(c.name, async () => {
          const res = await t.request(c.request);
          const { body, messages, exc } = assertV1Error(res, c.status, c.excType);
          assert.ok(
            messages.every((m) => m.message.length > 0),
            'every server message says something',
          );
          assert.ok(!leaksInternals(body.exc), `exc leaks internals outside developer mode: ${body.exc}`);
          assert.deepEqual(exc, [body.exception], 'outside developer mode exc holds the one-line exception');
          assert.equal(res.headers['cache-control'], 'no-store');
        });
      }
    });

    describe('v2 errors come as errors[] with type and message', () => {
      for (const c of v2Cases) {
        test(c.name, async () => {
          const res = await t.request(c.request);
          const first = assertV2Error(res, c.status, c.excType);
          assert.ok(!('exception' in first), 'no traceback outside developer mode');
          assert.equal(res.headers['cache-control'], 'no-store');
        });
      }
    });

    test('the 417 MandatoryError message names the missing field', async () => {
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { status: 'Open' } });
      const { messages } = assertV1Error(res, 417, 'MandatoryError');
      assert.match(messages.map((m) => m.message).join('\n'), /description/i);
      assert.equal(messages[0].indicator, 'red');
    });

    test('errors are JSON even when the client asks for HTML', async () => {
      const cases: TestRequest[] = [
        { method: 'GET', url: '/api/no-such-thing', headers: { accept: 'text/html' } },
        { method: 'GET', url: '/no-such-page', headers: { accept: 'text/html,application/xhtml+xml' } },
        { method: 'PATCH', url: '/api/resource/ToDo/x', headers: { accept: 'text/html' } },
        { method: 'GET', url: '/api/resource/ToDo', anonymous: true, headers: { accept: 'text/html' } },
      ];
      const expected = [
        [404, 'DoesNotExistError'],
        [404, 'DoesNotExistError'],
        [405, 'MethodNotAllowed'],
        [403, 'PermissionError'],
      ] as const;
      for (const [i, req] of cases.entries()) {
        const res = await t.request(req);
        assertV1Error(res, expected[i][0], expected[i][1]);
      }
    });

    test('a JSON body over the default max_request_size (10 MiB) is a 413 RequestTooLarge', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/ToDo',
        body: jsonBodyOver(10 * 1024 * 1024 + 1),
        headers: JSON_TYPE,
      });
      assertV1Error(res, 413, 'RequestTooLarge');
    });

    test('an oversize form-encoded body is a 413 RequestTooLarge too', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/method/login',
        body: `usr=Administrator&pwd=${'x'.repeat(10 * 1024 * 1024 + 1)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        anonymous: true,
      });
      assertV1Error(res, 413, 'RequestTooLarge');
    });

    test('a body under the default limit is not refused for its size', async () => {
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'x'.repeat(100_000) } });
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    });

    describe('API responses carry Cache-Control: no-store and a JSON content type', () => {
      const requests: readonly (TestRequest & { status: number })[] = [
        { method: 'GET', url: '/api/method/ping', anonymous: true, status: 200 },
        { method: 'GET', url: '/api/v2/method/ping', anonymous: true, status: 200 },
        { method: 'GET', url: '/api/method/fw.auth.get_logged_user', status: 200 },
        { method: 'POST', url: '/api/resource/ToDo', body: { description: 'headers' }, status: 200 },
        { method: 'GET', url: '/api/resource/ToDo/no-such-todo', status: 404 },
        { method: 'GET', url: '/api/no-such-thing', status: 404 },
        { method: 'PATCH', url: '/api/resource/ToDo/x', status: 405 },
        { method: 'POST', url: '/api/resource/ToDo', body: 'null', headers: JSON_TYPE, status: 400 },
        { method: 'GET', url: '/api/resource/ToDo', anonymous: true, status: 403 },
        { method: 'GET', url: '/api/method/ping', headers: { authorization: 'token nokey:nosecret' }, status: 401 },
      ];
      for (const r of requests) {
        test(`${r.method} ${r.url} (${r.status})`, async () => {
          const res = await t.request(r);
          assert.equal(res.statusCode, r.status, res.body.slice(0, 500));
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/i);
          JSON.parse(res.body);
        });
      }
    });

    describe('with a smaller max_request_size in site_config.json', () => {
      test('a body over the configured limit is a 413 and one under it is served', async () => {
        const small = await reopenWithConfig(t, { max_request_size: 4096 });
        try {
          const over = await small.app.inject({
            method: 'POST',
            url: '/api/resource/ToDo',
            headers: { ...JSON_TYPE, authorization: t.adminAuth },
            payload: jsonBodyOver(8192),
          });
          assertV1Error(over, 413, 'RequestTooLarge');
          const under = await small.app.inject({
            method: 'POST',
            url: '/api/resource/ToDo',
            headers: { ...JSON_TYPE, authorization: t.adminAuth },
            payload: jsonBodyOver(1024),
          });
          assert.equal(under.statusCode, 200, under.body.slice(0, 500));
        } finally {
          await small.close();
        }
      });
    });

    describe('in developer mode', () => {
      // The counterpart of the production checks above: the same request does carry a stack here,
      // which shows that leaksInternals() would catch one.
      test('exc carries the stack trace, which production answers never do', async () => {
        const dev = await reopenWithConfig(t, { developer_mode: true });
        try {
          const res = await dev.app.inject({
            method: 'GET',
            url: '/api/resource/ToDo/no-such-todo',
            headers: { authorization: t.adminAuth },
          });
          const { body } = assertV1Error(res, 404, 'DoesNotExistError');
          assert.ok(leaksInternals(body.exc), `developer mode exc holds a stack: ${body.exc.slice(0, 300)}`);
        } finally {
          await dev.close();
        }
      });
    });
  });
}
