import type { Database } from '../storage/database.js';
import { openDatabase } from '../storage/open-database.js';
import { loadSiteConfig, type SiteConfig } from './site-config.js';
import { resolveDbUrl, sitePaths, type SitePaths } from './site-paths.js';

/** A site's config and open database, with nothing installed or loaded yet. */
export interface SiteDatabase {
  readonly paths: SitePaths;
  readonly config: SiteConfig;
  readonly db: Database;
}

/** Options of openSiteDatabase. */
export interface OpenSiteDatabaseOptions {
  /** Overrides the site config's database URL. */
  readonly dbUrl?: string;
  /** PostgreSQL connections; the config's `db_pool_size` otherwise. One is enough for CLI work. */
  readonly poolSize?: number;
  /** PostgreSQL: server-side limit on one statement, instead of `db_statement_timeout` (migrations rewrite large tables). */
  readonly statementTimeoutMs?: number;
}

/**
 * Reads a site's config and opens its database. openSite builds the services on top; commands that
 * work below the services (migrate, backup) use it alone, so opening a site is written once.
 */
export async function openSiteDatabase(dir: string, options: OpenSiteDatabaseOptions = {}): Promise<SiteDatabase> {
  const paths = sitePaths(dir);
  const config = await loadSiteConfig(paths.config);
  const db = await openDatabase(resolveDbUrl(options.dbUrl ?? config.db_url, paths), {
    poolSize: options.poolSize ?? config.db_pool_size,
    // Never 0: both drivers read 0 as "wait for ever".
    connectionTimeoutMs: Math.max(1, Math.round(config.db_connect_timeout * 1000)),
    statementTimeoutMs: options.statementTimeoutMs ?? Math.max(1, Math.round(config.db_statement_timeout * 1000)),
  });
  return { paths, config, db };
}
