import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { createSite, openSite } from '../../src/site/open-site.js';
import { sitePaths } from '../../src/site/site-paths.js';
import type { Site } from '../../src/site/site.js';
import type { JobClock } from '../../src/jobs/job-clock.js';
import type { DialectCase } from './dialects.js';
import { sharedS3Server } from './s3-server.js';

export const ADMIN_PASSWORD = 'admin-Secret-42';

/** A throwaway site served in process, with an Administrator token ready. */
export interface TestSite {
  readonly site: Site;
  readonly app: FastifyInstance;
  /** `Authorization` header value acting as Administrator. */
  readonly adminAuth: string;
  /** Sends a request (JSON body when `body` is given) as Administrator unless headers say otherwise. */
  request(options: TestRequest): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send without the Administrator token. */
  anonymous?: boolean;
}

/** Options of startTestSite. */
export interface TestSiteOptions {
  /** Settings merged into site_config.json before the site opens (read at startup, such as webhook_allowed_targets). */
  readonly config?: Record<string, unknown>;
  /** Written into site_config.json before the site opens (an S3 `file_storage` from s3-server.ts, say). */
  readonly fileStorage?: Record<string, unknown>;
  /** The site's clock (job queue, two-factor codes): a ManualClock lets a test move time. */
  readonly clock?: JobClock;
}

/** Merges `overrides` into the site_config.json of the site in `dir`. */
export async function mergeSiteConfig(dir: string, overrides: Record<string, unknown>): Promise<void> {
  const file = sitePaths(dir).config;
  const current = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, `${JSON.stringify({ ...current, ...overrides }, null, 2)}\n`, { mode: 0o600 });
}

/** Creates a site on `dialect` in a temp folder, opens it and builds its HTTP app. */
export async function startTestSite(dialect: DialectCase, options: TestSiteOptions = {}): Promise<TestSite> {
  const dir = await mkdtemp(join(tmpdir(), 'fw-site-'));
  const db = await dialect.createUrl();
  await createSite(dir, { dbUrl: db.url, adminPassword: ADMIN_PASSWORD });
  if (options.config) await mergeSiteConfig(dir, options.config);
  // FW_TEST_FILE_BACKEND=s3 runs a file suite against a bucket on a shared s3rver (docs/files.md "Storage backends").
  const fileStorage = options.fileStorage ?? (process.env.FW_TEST_FILE_BACKEND === 's3' ? (await sharedS3Server()).fileStorage() : undefined);
  if (fileStorage) await mergeSiteConfig(dir, { file_storage: fileStorage });
  const site = await openSite(dir, options.clock ? { clock: options.clock } : {});
  const app = await buildApp(site);
  const keys = await app.inject({
    method: 'POST',
    url: '/api/method/login',
    payload: { usr: 'Administrator', pwd: ADMIN_PASSWORD },
  });
  const sid = keys.cookies.find((c) => c.name === 'sid')?.value;
  const generated = await app.inject({
    method: 'POST',
    url: '/api/method/fw.core.doctype.user.user.generate_keys',
    payload: { user: 'Administrator' },
    cookies: { sid: sid ?? '' },
  });
  const { api_key, api_secret } = generated.json().message as { api_key: string; api_secret: string };
  const adminAuth = `token ${api_key}:${api_secret}`;
  return {
    site,
    app,
    adminAuth,
    request(options) {
      const headers: Record<string, string> = { ...(options.anonymous ? {} : { authorization: adminAuth }), ...options.headers };
      return app.inject({
        method: options.method,
        url: options.url,
        headers,
        ...(options.body !== undefined ? (typeof options.body === 'string' ? { payload: options.body } : { payload: options.body as object }) : {}),
      });
    },
    async close() {
      await app.close();
      await site.close();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
