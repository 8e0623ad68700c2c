import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { originAllowed } from '../../src/settings/origin-policy.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const APP_ORIGIN = 'https://app.example.com';
const EVIL_ORIGIN = 'https://evil.example.net';

function preflight(app: FastifyInstance, url: string, origin: string) {
  return app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'content-type, x-frappe-csrf-token',
    },
  });
}

describe('originAllowed', () => {
  test('matches listed origins without regard to case or a trailing slash, and nothing else', () => {
    assert.equal(originAllowed([`${APP_ORIGIN}/`], 'HTTPS://App.Example.com'), true);
    assert.equal(originAllowed([APP_ORIGIN], EVIL_ORIGIN), false);
    assert.equal(originAllowed([APP_ORIGIN], `${APP_ORIGIN}.evil.net`), false);
    assert.equal(originAllowed('*', EVIL_ORIGIN), true);
    assert.equal(originAllowed(null, APP_ORIGIN), false);
    assert.equal(originAllowed('*', undefined), false);
    assert.equal(originAllowed('*', 'null'), false);
    assert.equal(originAllowed(['null'], 'null'), false);
  });
});

for (const dialect of testDialects()) {
  describe(`CORS (${dialect.name})`, () => {
    let t: TestSite;
    let listed: ReopenedSite;
    let anyOrigin: ReopenedSite;
    let developer: ReopenedSite;
    before(async () => {
      t = await startTestSite(dialect);
      listed = await reopenWithConfig(t, { allow_cors: [APP_ORIGIN] });
      anyOrigin = await reopenWithConfig(t, { allow_cors: '*' });
      developer = await reopenWithConfig(t, { allow_cors: [APP_ORIGIN], developer_mode: true });
    });
    after(async () => {
      await developer.close();
      await anyOrigin.close();
      await listed.close();
      await t.close();
    });

    test('without allow_cors no request gets CORS headers', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/method/ping', headers: { origin: APP_ORIGIN } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
    });

    for (const url of ['/api/resource/ToDo', '/api/method/login', '/no/such/route']) {
      test(`OPTIONS ${url} without allow_cors is an empty 200 with no CORS headers`, async () => {
        const res = await preflight(t.app, url, APP_ORIGIN);
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, '');
        assert.equal(res.headers['access-control-allow-origin'], undefined);
        assert.equal(res.headers['access-control-allow-methods'], undefined);
      });
    }

    test('an allowed origin is echoed with credentials allowed and Vary: Origin', async () => {
      const res = await listed.app.inject({ method: 'GET', url: '/api/method/ping', headers: { origin: APP_ORIGIN } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
      assert.match(String(res.headers.vary), /\bOrigin\b/);
    });

    test('an origin not on the list gets no CORS headers, but still Vary: Origin', async () => {
      const res = await listed.app.inject({ method: 'GET', url: '/api/method/ping', headers: { origin: EVIL_ORIGIN } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
      assert.match(String(res.headers.vary), /\bOrigin\b/);
    });

    test('a preflight from an allowed origin is an empty 200 echoing the method and headers, cached for a day', async () => {
      const res = await preflight(listed.app, '/api/resource/ToDo/abc', APP_ORIGIN);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, '');
      assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
      assert.equal(res.headers['access-control-allow-methods'], 'PUT');
      assert.equal(res.headers['access-control-allow-headers'], 'content-type, x-frappe-csrf-token');
      assert.equal(res.headers['access-control-max-age'], '86400');
    });

    test('a preflight from another origin is an empty 200 that allows nothing', async () => {
      const res = await preflight(listed.app, '/api/resource/ToDo', EVIL_ORIGIN);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, '');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-methods'], undefined);
      assert.equal(res.headers['access-control-allow-headers'], undefined);
    });

    test('in developer mode a preflight is not cached', async () => {
      const res = await preflight(developer.app, '/api/resource/ToDo', APP_ORIGIN);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-methods'], 'PUT');
      assert.equal(res.headers['access-control-max-age'], undefined);
    });

    test('"*" echoes whatever origin asks, never a literal *, and never with credentials (issue 14)', async () => {
      const res = await anyOrigin.app.inject({ method: 'GET', url: '/api/method/ping', headers: { origin: EVIL_ORIGIN } });
      assert.equal(res.headers['access-control-allow-origin'], EVIL_ORIGIN);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
      const preflight = await anyOrigin.app.inject({
        method: 'OPTIONS',
        url: '/api/resource/ToDo',
        headers: { origin: EVIL_ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.headers['access-control-allow-origin'], EVIL_ORIGIN);
      assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
    });

    test('the opaque origin null is never allowed, not even by "*" (issue 14)', async () => {
      for (const app of [anyOrigin.app, listed.app]) {
        const res = await app.inject({ method: 'GET', url: '/api/method/ping', headers: { origin: 'null' } });
        assert.equal(res.headers['access-control-allow-origin'], undefined);
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
        const preflight = await app.inject({
          method: 'OPTIONS',
          url: '/api/method/ping',
          headers: { origin: 'null', 'access-control-request-method': 'POST' },
        });
        assert.equal(preflight.headers['access-control-allow-origin'], undefined);
        assert.equal(preflight.headers['access-control-allow-methods'], undefined);
      }
    });

    test('error answers carry the CORS headers too, so the browser lets the client read them', async () => {
      const guest = await listed.app.inject({ method: 'GET', url: '/api/resource/User', headers: { origin: APP_ORIGIN } });
      assertV1Error(guest, 403, 'PermissionError');
      assert.equal(guest.headers['access-control-allow-origin'], APP_ORIGIN);
      const missing = await listed.app.inject({ method: 'GET', url: '/no/such/route', headers: { origin: APP_ORIGIN } });
      assertV1Error(missing, 404, 'DoesNotExistError');
      assert.equal(missing.headers['access-control-allow-origin'], APP_ORIGIN);
      // Refused by the router before any route or hook runs.
      const badUrl = await listed.app.inject({ method: 'GET', url: '/api/resource/ToDo/%ZZ', headers: { origin: APP_ORIGIN } });
      assertV1Error(badUrl, 400, 'InvalidRequestBody');
      assert.equal(badUrl.headers['access-control-allow-origin'], APP_ORIGIN);
      assert.equal(badUrl.headers['cache-control'], 'no-store');
    });

    test('a change to allow_cors made elsewhere applies to the very next request, even one that runs no unit of work', async () => {
      const settingsUrl = `/api/resource/System%20Settings/System%20Settings`;
      const other = await reopenWithConfig(t, {});
      const fromApp = (url: string, extra: Record<string, string> = {}, payload?: string) =>
        other.app.inject({
          method: payload === undefined ? 'GET' : 'POST',
          url,
          headers: { origin: APP_ORIGIN, ...extra },
          ...(payload === undefined ? {} : { payload }),
        });
      try {
        // The second view has read its settings (none allowed) before the change.
        assert.equal((await fromApp('/api/method/ping')).headers['access-control-allow-origin'], undefined);
        const set = await t.request({ method: 'PUT', url: settingsUrl, body: { allow_cors: APP_ORIGIN } });
        assert.equal(set.statusCode, 200, set.body);
        // ping touches no database, an unknown route and a malformed body reach no unit of work.
        for (const res of [
          await fromApp('/api/method/ping'),
          await fromApp('/no/such/route'),
          await fromApp('/api/resource/ToDo', { 'content-type': 'application/json' }, '{"description":'),
        ]) {
          assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN, `${res.statusCode} ${res.body.slice(0, 200)}`);
          assert.equal(res.headers['access-control-allow-credentials'], 'true');
        }
        const cleared = await t.request({ method: 'PUT', url: settingsUrl, body: { allow_cors: '' } });
        assert.equal(cleared.statusCode, 200, cleared.body);
        assert.equal((await fromApp('/api/method/ping')).headers['access-control-allow-origin'], undefined);
      } finally {
        await t.request({ method: 'PUT', url: settingsUrl, body: { allow_cors: '' } });
        await other.close();
      }
    });

    test('a refused login from an allowed origin carries the CORS headers, so the client can read why', async () => {
      const res = await listed.app.inject({
        method: 'POST',
        url: '/api/method/login',
        payload: { usr: 'Administrator', pwd: 'wrong' },
        headers: { origin: APP_ORIGIN },
        remoteAddress: '10.200.0.1',
      });
      assertV1Error(res, 401, 'AuthenticationError');
      assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
    });
  });
}
