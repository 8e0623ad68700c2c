import { readFile, writeFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import type { TestSite } from './test-site.js';

/** A second view of a test site, opened after its site_config.json was changed. */
export interface ReopenedSite {
  readonly site: Site;
  readonly app: FastifyInstance;
  /** Closes this view only; the original TestSite still owns the folder and database. */
  close(): Promise<void>;
}

/**
 * Merges `overrides` into the test site's site_config.json and opens the site again, so a suite
 * can exercise settings that are read at startup (max_request_size, developer_mode) without
 * creating a second database. The file is restored once the site is open, so the original
 * TestSite and later reopenings see the config they started with.
 */
export async function reopenWithConfig(t: TestSite, overrides: Record<string, unknown>): Promise<ReopenedSite> {
  const file = t.site.paths.config;
  const original = await readFile(file, 'utf8');
  const current = JSON.parse(original) as Record<string, unknown>;
  await writeFile(file, `${JSON.stringify({ ...current, ...overrides }, null, 2)}\n`, { mode: 0o600 });
  let site: Site;
  let app: FastifyInstance;
  try {
    site = await openSite(t.site.paths.root);
  } finally {
    // The file is read only at open; restoring it at once keeps later reopenings independent.
    await writeFile(file, original, { mode: 0o600 });
  }
  try {
    app = await buildApp(site);
  } catch (err) {
    await site.close();
    throw err;
  }
  return {
    site,
    app,
    async close() {
      await app.close();
      await site.close();
    },
  };
}
