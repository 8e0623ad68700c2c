import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { BackupProgress } from '../storage/database.js';
import { MANIFEST_FILE, newManifest } from './backup-manifest.js';
import type { Progress } from './install-core.js';
import { openSiteDatabase } from './open-site-database.js';
import { writeArchive } from './site-archive.js';
import type { SitePaths } from './site-paths.js';

/** Options of backupSite. */
export interface BackupSiteOptions {
  /** Overrides the site config's database URL. */
  readonly dbUrl?: string;
  /** The archive to write; `<site>/private/backups/<site>-<UTC time>.tar.gz` otherwise. */
  readonly out?: string;
  readonly progress?: Progress;
}

/** `20240131-235959`: sortable, and safe in a file name everywhere. */
function fileStamp(at: Date): string {
  return at.toISOString().replace(/\.\d+Z$/, '').replace(/-|:/g, '').replace('T', '-');
}

/** Outside public/ and private/files, so a backup never holds the backups before it. */
function defaultArchive(paths: SitePaths, at: Date): string {
  return join(paths.root, 'private', 'backups', `${basename(paths.root)}-${fileStamp(at)}.tar.gz`);
}

/** Reports each tenth of the way once, so a large database shows movement without a flood of lines. */
function percentSteps(progress: Progress): BackupProgress {
  let shown = -1;
  return (fraction) => {
    const tenth = Math.floor(fraction * 10);
    if (tenth > shown) {
      shown = tenth;
      progress(`database ${tenth * 10}%`);
    }
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes one `.tar.gz` holding a site: the database dump (SQLite online backup, or pg_dump),
 * `site_config.json` and the `public/files` and `private/files` folders, plus a manifest that
 * restoreSite checks. The site may keep serving meanwhile. Returns the archive's path.
 */
export async function backupSite(dir: string, options: BackupSiteOptions = {}): Promise<string> {
  const progress = options.progress ?? (() => {});
  const at = new Date();
  const { paths, db } = await openSiteDatabase(dir, { dbUrl: options.dbUrl, poolSize: 1 });
  try {
    const out = resolve(options.out ?? defaultArchive(paths, at));
    if (await exists(out)) throw new Error(`${out} already exists: choose another --out`);
    await mkdir(dirname(out), { recursive: true });
    // Beside the archive: the dump can be as large as the database, and /tmp is often small.
    const staging = await mkdtemp(join(dirname(out), '.fw-backup-'));
    try {
      const manifest = newManifest(db.dialect.name, at);
      progress(`database (${manifest.engine})`);
      await db.backup(join(staging, manifest.database), percentSteps(progress));
      await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);

      progress('site_config.json and files');
      const siteParts = [relative(paths.root, paths.config)];
      for (const folder of [paths.publicFiles, paths.privateFiles]) {
        if (await exists(folder)) siteParts.push(relative(paths.root, folder));
      }
      await writeArchive(out, [
        { cwd: staging, paths: [MANIFEST_FILE, manifest.database] },
        { cwd: paths.root, paths: siteParts },
      ]);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    return out;
  } finally {
    await db.close();
  }
}
