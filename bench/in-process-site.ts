// A throwaway site opened inside the bench process, for the scenarios that measure a subsystem
// rather than the HTTP edge (data import, search, mail): requests go through Fastify's inject, as
// an Administrator's API token, so the document pipeline and permissions run as for a client.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/http/app.js';
import { createSite, openSite } from '../src/site/open-site.js';
import type { Site } from '../src/site/site.js';

const PASSWORD = 'bench-Secret-42';

/** An open site, its app and an Administrator's `token key:secret`. */
export interface InProcessSite {
  readonly site: Site;
  readonly app: FastifyInstance;
  readonly auth: string;
  /** Sends a request as the Administrator; throws unless it answers 200. */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/** Creates a site in `dir` (on `dbUrl` when given), opens it and signs the Administrator in by token. */
export async function openInProcessSite(dir: string, dbUrl: string | undefined): Promise<InProcessSite> {
  await createSite(dir, { dbUrl, adminPassword: PASSWORD });
  const site = await openSite(dir);
  const app = await buildApp(site);
  const login = await app.inject({ method: 'POST', url: '/api/method/login', payload: { usr: 'Administrator', pwd: PASSWORD } });
  const sid = login.cookies.find((c) => c.name === 'sid')?.value ?? '';
  const keys = await app.inject({
    method: 'POST',
    url: '/api/method/fw.core.doctype.user.user.generate_keys',
    payload: { user: 'Administrator' },
    cookies: { sid },
  });
  const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
  const auth = `token ${api_key}:${api_secret}`;
  return {
    site,
    app,
    auth,
    async call(method, url, payload) {
      const res = await app.inject({ method, url, headers: { authorization: auth }, ...(payload ? { payload } : {}) });
      if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as Record<string, any>;
    },
    async close() {
      await app.close();
      await site.close();
    },
  };
}

/** Inserts for `seconds` through POST /api/resource/<doctype>; answers inserts per second. */
export async function insertRate(s: InProcessSite, doctype: string, seconds: number, body: (n: number) => object): Promise<number> {
  const start = performance.now();
  const end = start + seconds * 1000;
  let n = 0;
  while (performance.now() < end) {
    const res = await s.app.inject({
      method: 'POST',
      url: `/api/resource/${encodeURIComponent(doctype)}`,
      headers: { authorization: s.auth },
      payload: body(n),
    });
    if (res.statusCode !== 200) throw new Error(`insert failed: ${res.statusCode} ${res.body}`);
    n += 1;
  }
  return n / ((performance.now() - start) / 1000);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
