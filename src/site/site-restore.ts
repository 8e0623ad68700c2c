import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Database } from '../storage/database.js';
import { databaseEngine, describeDatabaseUrl, openDatabase } from '../storage/open-database.js';
import { readBackupManifest, type BackupManifest } from './backup-manifest.js';
import type { Progress } from './install-core.js';
import { migrateSite, type MigrationSummary } from './migrate-site.js';
import { siteExists } from './open-site.js';
import { extractArchive } from './site-archive.js';
import { loadSiteConfig } from './site-config.js';
import { resolveDbUrl, sitePaths, type SitePaths } from './site-paths.js';

/** Options of restoreSite. */
export interface RestoreSiteOptions {
  /** The database to restore into, written into the restored config; otherwise the target's own, or the archived one. */
  readonly dbUrl?: string;
  /** Replace a site (folder or database) that already exists. */
  readonly force?: boolean;
  readonly progress?: Progress;
}

/** What restoreSite did. */
export interface RestoreResult {
  readonly engine: BackupManifest['engine'];
  /** The migration run on the restored site. */
  readonly migration: MigrationSummary;
}

/** Restoring may rewrite every table; the request limit does not apply. */
const RESTORE_STATEMENT_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Restores an archive written by backupSite into the site folder `dir`: the database (SQLite file
 * contents, or pg_restore), `public/files`, `private/files` and `site_config.json`, then runs
 * migrateSite so an older backup fits this fw. Refuses, without `force`, to replace a site: a
 * folder holding `site_config.json` or a database holding DocTypes. The config is written last, so
 * a restore that fails part-way leaves no folder that looks like a working site.
 */
export async function restoreSite(archive: string, dir: string, options: RestoreSiteOptions = {}): Promise<RestoreResult> {
  const progress = options.progress ?? (() => {});
  const file = resolve(archive);
  if (
    !(await stat(file).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    throw new Error(`The backup archive ${file} does not exist`);
  const paths = sitePaths(dir);
  const existing = await siteExists(dir);
  if (existing && !options.force) throw new Error(`${paths.root} already holds a site: pass --force to replace it`);

  const createdRoot = await mkdir(paths.root, { recursive: true });
  // Beside the site, so unpacked folders move into place by rename on the same file system.
  const staging = await mkdtemp(join(dirname(paths.root), '.fw-restore-'));
  let restored = false;
  let engine: BackupManifest['engine'];
  try {
    progress('unpacking');
    try {
      await extractArchive(file, staging);
    } catch (err) {
      throw new Error(`${file} is not a readable backup archive (${(err as Error).message})`, { cause: err });
    }
    const manifest = await readBackupManifest(staging, file);
    engine = manifest.engine;
    const config = await restoredConfig(staging, file, paths, existing, options.dbUrl);
    const url = String(config.db_url);
    if (databaseEngine(url) !== engine) {
      throw new Error(`${file} holds a ${engine} database, and ${describeDatabaseUrl(url)} is ${databaseEngine(url)}: give --db a ${engine} database URL`);
    }
    const stagedConfig = join(staging, 'restored_site_config.json');
    await writeFile(stagedConfig, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    const { file_storage: storage } = await loadSiteConfig(stagedConfig);

    const db = await openDatabase(resolveDbUrl(url, paths), { poolSize: 1, statementTimeoutMs: RESTORE_STATEMENT_TIMEOUT_MS });
    try {
      if (!options.force && (await holdsSite(db))) {
        throw new Error(`The database ${describeDatabaseUrl(url)} already holds a site: pass --force to replace it, or --db to restore into another database`);
      }
      progress(`database (${engine})`);
      let shown = -1;
      await db.restore(join(staging, manifest.database), (fraction) => {
        const tenth = Math.floor(fraction * 10);
        if (tenth > shown) progress(`database ${(shown = tenth) * 10}%`);
      });
    } finally {
      await db.close();
    }

    progress('files');
    if (storage.backend === 's3') {
      // The archive's folders go into the bucket the restored config names (docs/files.md "Backups").
      const { uploadBucketFiles } = await import('./bucket-backup.js');
      progress(`files into the bucket (${await uploadBucketFiles(storage, staging)})`);
    } else {
      for (const folder of [paths.publicFiles, paths.privateFiles]) {
        await replaceContents(join(staging, relative(paths.root, folder)), folder);
      }
    }
    await move(stagedConfig, paths.config);
    restored = true;
  } finally {
    await rm(staging, { recursive: true, force: true });
    if (!restored && createdRoot) await rm(createdRoot, { recursive: true, force: true });
  }
  return { engine, migration: await migrateSite(dir, { progress: (m) => progress(`syncing ${m}`) }) };
}

/**
 * The config to restore: the archived one, with the database to restore into. An existing site
 * keeps its own database unless `dbUrl` names another; a new folder takes the backed-up site's.
 */
async function restoredConfig(
  staging: string,
  archive: string,
  paths: SitePaths,
  existing: boolean,
  dbUrl: string | undefined,
): Promise<Record<string, unknown>> {
  let archived: unknown;
  try {
    archived = JSON.parse(await readFile(join(staging, relative(paths.root, paths.config)), 'utf8'));
  } catch {
    throw new Error(`${archive} is incomplete: it holds no readable site_config.json`);
  }
  if (archived === null || typeof archived !== 'object' || Array.isArray(archived)) {
    throw new Error(`${archive} holds a site_config.json that is not a JSON object`);
  }
  const url = dbUrl ?? (existing ? (await loadSiteConfig(paths.config)).db_url : (archived as Record<string, unknown>).db_url);
  return { ...archived, db_url: url };
}

/** True when the database already holds fw's tables. */
async function holdsSite(db: Database): Promise<boolean> {
  return (await db.read((q) => db.dialect.listColumns(q, 'tabDocType'))).length > 0;
}

/** Empties `to` and moves what `from` holds into it; `to` itself stays, as it may be a mount of shared storage. */
async function replaceContents(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(to)) await rm(join(to, entry), { recursive: true, force: true });
  const entries = await readdir(from).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  for (const entry of entries) await move(join(from, entry), join(to, entry));
}

/** rename, or copy and delete when `to` is on another file system. */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(from, to, { recursive: true, preserveTimestamps: true });
    await rm(from, { recursive: true, force: true });
  }
}
