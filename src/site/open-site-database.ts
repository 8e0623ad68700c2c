import { stat } from 'node:fs/promises';
import type { Database } from '../storage/database.js';
import { describeDatabaseUrl, engineOf, openDatabase } from '../storage/open-database.js';
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
  /**
   * Only `createSite` sets it: the database may be new and empty. Otherwise a missing SQLite file or
   * a database without fw's tables is refused, never silently replaced by an empty site.
   */
  readonly create?: boolean;
  /** SQLite: open the database read-only (backups), so a read-only site folder can be backed up. */
  readonly readOnly?: boolean;
  /** With readOnly: a writable folder for a copy of a SQLite file that cannot be opened in place. */
  readonly snapshotDir?: string;
  /** Where warnings about site_config.json go (unknown keys); stderr when absent. */
  readonly warn?: (message: string) => void;
}

/** Where to look when an existing site's database is not there, and what fw will not do about it. */
const MISSING_DATABASE_ADVICE =
  'If it lives on a volume or server that is not mounted or reachable, fix that and start again; to bring ' +
  'a backup back, use `fw restore`. fw does not create the database of an existing site: `fw new-site` creates sites.';

/** Refuses before opening when an existing site's SQLite file is missing (opening would create it empty). */
async function checkSqliteFileExists(url: string, file: string, paths: SitePaths): Promise<void> {
  if (engineOf(url).databaseFiles(file).length === 0) return;
  const problem = await stat(file).then(
    (s) => (s.isFile() ? undefined : 'is not a file'),
    (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 'does not exist' : `cannot be reached (${err.message})`),
  );
  if (problem) {
    throw new Error(`The database of the site in ${paths.root} is missing: ${file} ${problem} (db_url ${url}). ${MISSING_DATABASE_ADVICE}`);
  }
}

/** Refuses a database that holds no fw site: an empty file or PostgreSQL database named by mistake. */
async function checkHoldsSite(db: Database, url: string, paths: SitePaths): Promise<void> {
  const columns = await db.read((q) => db.dialect.listColumns(q, 'tabDocType'));
  if (columns.length > 0) return;
  throw new Error(
    `The database ${describeDatabaseUrl(url)} of the site in ${paths.root} holds no fw site (it has no tabDocType table). ` +
      `Check db_url in site_config.json (or --db). ${MISSING_DATABASE_ADVICE}`,
  );
}

/**
 * Reads a site's config and opens its database. openSite builds the services on top; commands that
 * work below the services (migrate, backup) use it alone, so opening a site is written once.
 */
export async function openSiteDatabase(dir: string, options: OpenSiteDatabaseOptions = {}): Promise<SiteDatabase> {
  const paths = sitePaths(dir);
  const config = await loadSiteConfig(paths.config, { warn: options.warn ?? ((m) => process.stderr.write(`fw: warning: ${m}\n`)) });
  const url = options.dbUrl ?? config.db_url;
  const target = resolveDbUrl(url, paths);
  if (!options.create) await checkSqliteFileExists(url, target, paths);
  const db = await openDatabase(target, {
    poolSize: options.poolSize ?? config.db_pool_size,
    // Never 0: both drivers read 0 as "wait for ever".
    connectionTimeoutMs: Math.max(1, Math.round(config.db_connect_timeout * 1000)),
    statementTimeoutMs: options.statementTimeoutMs ?? Math.max(1, Math.round(config.db_statement_timeout * 1000)),
    preparedStatements: config.db_prepared_statements,
    readOnly: options.readOnly,
    snapshotDir: options.snapshotDir,
  });
  if (!options.create) {
    try {
      await checkHoldsSite(db, url, paths);
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  return { paths, config, db };
}
