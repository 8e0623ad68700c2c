import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Site } from '../site/site.js';
import { ADMIN_UI_CSP, registerAdminUi } from './admin-ui.js';

/*
 * Serving the admin UI from a build folder: the page at /app, /app/... and /login with its CSP and
 * no caching; hashed assets cached for a year, gzipped, with ETags; `admin_ui: false` serves
 * nothing. A fixture folder stands in for dist/ui.
 */

const PAGE = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

function fakeSite(adminUi: boolean): Site {
  return { config: { admin_ui: adminUi } } as unknown as Site;
}

async function appFor(dir: string, adminUi = true): Promise<FastifyInstance> {
  const app = Fastify();
  registerAdminUi(app, fakeSite(adminUi), dir);
  app.setNotFoundHandler(async (_req, reply) => reply.code(404).send({ exc_type: 'DoesNotExistError' }));
  await app.ready();
  return app;
}

describe('admin UI serving', () => {
  let dir: string;
  let app: FastifyInstance;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-ui-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), PAGE);
    await writeFile(join(dir, 'assets', 'index-abc123.js'), SCRIPT);
    app = await appFor(dir);
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const url of ['/app', '/app/sales-order', '/app/sales-order/SO-0001', '/app/user/new', '/login']) {
    test(`serves the page at ${url} uncached, with a CSP that allows no inline script`, async () => {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, PAGE);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['content-security-policy'], ADMIN_UI_CSP);
      assert.match(ADMIN_UI_CSP, /script-src 'self'(;|$)/);
      assert.doesNotMatch(ADMIN_UI_CSP, /unsafe-inline|unsafe-eval/);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    });
  }

  test('serves a hashed asset for a year, gzipped when asked, and answers 304 to its ETag', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, SCRIPT);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    const zipped = await app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(zipped.rawPayload).toString(), SCRIPT);
    assert.ok(zipped.rawPayload.length < SCRIPT.length / 4);
    const again = await app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'if-none-match': String(plain.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  for (const url of ['/assets/missing.js', '/assets/../index.html', '/assets/%2e%2e/%2e%2e/package.json', '/assets/']) {
    test(`answers 404 for ${url}, never a file outside the build`, async () => {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404);
      assert.doesNotMatch(res.body, /doctype html|"name"/);
    });
  }

  test('serves nothing when admin_ui is false', async () => {
    const off = await appFor(dir, false);
    try {
      for (const url of ['/app', '/app/todo', '/login', '/assets/index-abc123.js']) {
        assert.equal((await off.inject({ method: 'GET', url })).statusCode, 404, url);
      }
    } finally {
      await off.close();
    }
  });

  test('answers 503 with a hint when the UI was never built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'fw-ui-empty-'));
    const bare = await appFor(empty);
    try {
      const res = await bare.inject({ method: 'GET', url: '/app' });
      assert.equal(res.statusCode, 503);
      assert.match(res.body, /npm run build/);
      assert.equal(res.headers['content-security-policy'], ADMIN_UI_CSP);
    } finally {
      await bare.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
