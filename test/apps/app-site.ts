import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import type { TestSite } from '../helpers/test-site.js';

/** The example app's module, as a site lists it. */
export const LIBRARY_APP = fileURLToPath(new URL('../../examples/library-app/index.js', import.meta.url));

/**
 * The test site opened again with `apps` in its site_config.json, as a TestSite acting as the same
 * Administrator. `close()` closes this view only; the original keeps the folder and database.
 */
export async function openWithApps(t: TestSite, apps: readonly string[]): Promise<TestSite> {
  const view = await reopenWithConfig(t, { apps });
  return {
    site: view.site,
    app: view.app,
    adminAuth: t.adminAuth,
    request(options) {
      const headers: Record<string, string> = { ...(options.anonymous ? {} : { authorization: t.adminAuth }), ...options.headers };
      const payload = options.body === undefined ? {} : { payload: typeof options.body === 'string' ? options.body : (options.body as object) };
      return view.app.inject({ method: options.method, url: options.url, headers, ...payload });
    },
    close: () => view.close(),
  };
}

/** Runs `work` while the site's config lists `apps` (for code that reads the config itself, like migrateSite). */
export async function withApps<T>(t: TestSite, apps: readonly string[], work: () => Promise<T>): Promise<T> {
  const file = t.site.paths.config;
  const original = await readFile(file, 'utf8');
  await writeFile(file, `${JSON.stringify({ ...JSON.parse(original), apps }, null, 2)}\n`, { mode: 0o600 });
  try {
    return await work();
  } finally {
    await writeFile(file, original, { mode: 0o600 });
  }
}

/** A folder of throwaway app modules; each one gets its own file, since Node caches a module by its URL. */
export class ScratchApps {
  #root: string | undefined;
  #count = 0;

  /** Writes an app module (ES module source) and returns its absolute path. */
  async write(source: string): Promise<string> {
    this.#root ??= await mkdtemp(join(tmpdir(), 'fw-test-apps-'));
    this.#count += 1;
    const dir = join(this.#root, `app-${this.#count}`);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'index.mjs');
    await writeFile(file, source);
    return file;
  }

  /** Removes every module written. */
  async dispose(): Promise<void> {
    if (this.#root) await rm(this.#root, { recursive: true, force: true });
  }
}
