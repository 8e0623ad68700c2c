import { join, resolve } from 'node:path';
import { assertDatabaseUrl } from '../storage/database-url.js';

/** Where a site keeps its things, all inside one folder. */
export interface SitePaths {
  readonly root: string;
  readonly config: string;
  /** The default SQLite file. */
  readonly database: string;
  readonly publicFiles: string;
  readonly privateFiles: string;
}

/** The paths of the site in `dir`. */
export function sitePaths(dir: string): SitePaths {
  const root = resolve(dir);
  return {
    root,
    config: join(root, 'site_config.json'),
    database: join(root, 'site.db'),
    publicFiles: join(root, 'public', 'files'),
    privateFiles: join(root, 'private', 'files'),
  };
}

/**
 * A database URL from site_config.json or `--db`, with relative SQLite paths taken from the site
 * folder. Refuses anything but the supported forms (database-url.ts).
 */
export function resolveDbUrl(url: string, paths: SitePaths): string {
  assertDatabaseUrl(url);
  if (/^postgres(ql)?:\/\//i.test(url)) return url;
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  return file === ':memory:' ? file : resolve(paths.root, file);
}
