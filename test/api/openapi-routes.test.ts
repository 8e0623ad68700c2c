import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { createSite, openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import { testDialects } from '../helpers/dialects.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';

/**
 * Routes the description leaves out on purpose, each with its reason. Everything else Fastify
 * serves must be in /api/openapi.json, verb by verb (the drift docs/openapi.md promises against).
 */
const EXCLUDED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/(app|app\/\*|login|update-password|qrcode|assets\/\*)$/, 'the admin UI: HTML pages and their assets, not API (docs/admin-ui.md)'],
  [/^\/api\/docs(\/:file)?$/, 'the API reference page and its Swagger UI files'],
];

/** Route options beside the URL that mark a route as another form of a described one. */
function describedElsewhere(route: RouteOptions): string | undefined {
  const config = (route.config ?? {}) as Record<string, unknown>;
  // resource-routes.ts: fillers that only answer 405 with `Allow`, and the wildcard that serves the
  // same document paths for names holding `/`.
  if (config.allow !== undefined) return '405 filler';
  if (config.slashNames) return 'names with a slash';
  return undefined;
}

/** A URL pattern with its parameters blanked: Fastify `:name` and `*`, OpenAPI `{name}`. */
function shape(url: string): string {
  return url
    .replace(/:[A-Za-z_]+/g, '{}')
    .replace(/\*$/, '{}')
    .replace(/\{[^}]*\}/g, '{}');
}

for (const dialect of testDialects()) {
  describe(`every route Fastify serves is in the description (${dialect.name})`, () => {
    let dir: string;
    let db: { url: string; drop(): Promise<void> };
    let site: Site;
    let app: FastifyInstance;
    const routes: RouteOptions[] = [];
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-routes-'));
      db = await dialect.createUrl();
      await createSite(dir, { dbUrl: db.url, adminPassword: ADMIN_PASSWORD });
      site = await openSite(dir);
      app = await buildApp(site, { onRoute: (route) => routes.push(route) });
    });
    after(async () => {
      await app.close();
      await site.close();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('each verb of each route has an operation on a path of the same shape', async () => {
      const login = await app.inject({ method: 'POST', url: '/api/method/login', payload: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
      const sid = login.cookies.find((c) => c.name === 'sid')?.value ?? '';
      const spec = (await app.inject({ method: 'GET', url: '/api/openapi.json', cookies: { sid } })).json();
      const described = new Map<string, Set<string>>();
      for (const [path, item] of Object.entries(spec.paths as Record<string, object>)) {
        const verbs = described.get(shape(path)) ?? new Set<string>();
        for (const verb of Object.keys(item)) verbs.add(verb.toUpperCase());
        described.set(shape(path), verbs);
      }
      assert.ok(routes.length > 20, 'routes were collected');
      const missing: string[] = [];
      let checked = 0;
      for (const route of routes) {
        if (EXCLUDED.some(([pattern]) => pattern.test(route.url)) || describedElsewhere(route)) continue;
        // HEAD is answered as GET (Fastify adds a HEAD route beside each GET route).
        const verbs = (Array.isArray(route.method) ? route.method : [route.method]).filter((v) => v !== 'HEAD');
        for (const verb of verbs) {
          checked++;
          if (!described.get(shape(route.url))?.has(verb)) missing.push(`${verb} ${route.url}`);
        }
      }
      assert.deepEqual(missing, [], `served but not described:\n${missing.join('\n')}`);
      assert.ok(checked > 40);
    });
  });
}
