import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSiteName } from './site-host.js';

/**
 * `default_site` from `<sites>/common_site_config.json` (where the reference's `bench use` writes
 * it): the site answering a Host that names none. Undefined when the file or the key is absent;
 * a file that is not JSON, or a value that cannot name a site, is refused.
 */
export async function readDefaultSite(sitesDir: string): Promise<string | undefined> {
  const file = join(sitesDir, 'common_site_config.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).default_site : undefined;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !isSiteName(value.toLowerCase())) throw new Error(`${file}: "default_site" must be a site folder name`);
  return value.toLowerCase();
}
