import { lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { BackupProgress } from '../storage/database.js';
import { MANIFEST_FILE, newManifest, type BackupManifest } from './backup-manifest.js';
import type { Progress } from './install-core.js';
import { openSiteDatabase } from './open-site-database.js';
import { writeArchive } from './site-archive.js';
import { loadSiteConfig } from './site-config.js';
import { sitePaths, type SitePaths } from './site-paths.js';

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
  return at
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/-|:/g, '')
    .replace('T', '-');
}

/** Outside public/ and private/files, so a backup never holds the backups before it. */
function defaultArchive(paths: SitePaths, at: Date): string {
  return join(paths.root, 'private', 'backups', `${basename(paths.root)}-${fileStamp(at)}.tar.gz`);
}

/** Reports each tenth of the way once, so a large database shows movement without a flood of lines. */
function percentSteps(progress: Progress, what: string): BackupProgress {
  let shown = -1;
  return (fraction) => {
    const tenth = Math.floor(Math.min(1, fraction) * 10);
    if (tenth > shown) {
      shown = tenth;
      progress(`${what} ${tenth * 10}%`);
    }
  };
}

/** Bytes of the files under `paths` (folders walked, links not followed): what the archive will hold. */
async function sizeOf(paths: readonly string[]): Promise<number> {
  let total = 0;
  for (const path of paths) {
    const info = await lstat(path);
    if (info.isDirectory()) total += await sizeOf((await readdir(path)).map((entry) => join(path, entry)));
    else if (info.isFile()) total += info.size;
  }
  return total;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes one `.tar.gz` holding a site: the database dump (SQLite online backup, or pg_dump),
 * `site_config.json` and the `public/files` and `private/files` folders (downloaded from the bucket
 * when the site's files live in one), plus a manifest that
 * restoreSite checks. The site may keep serving meanwhile. Returns the archive's path.
 */
export async function backupSite(dir: string, options: BackupSiteOptions = {}): Promise<string> {
  const progress = options.progress ?? (() => {});
  const at = new Date();
  const paths = sitePaths(dir);
  const out = resolve(options.out ?? defaultArchive(paths, at));
  if (await exists(out)) throw new Error(`${out} already exists: choose another --out`);
  await mkdir(dirname(out), { recursive: true });
  // Beside the archive: the dump can be as large as the database, and /tmp is often small.
  const staging = await mkdtemp(join(dirname(out), '.fw-backup-'));
  try {
    // Read-only: a backup writes nothing into the site, so a site on a read-only volume can be backed up.
    const { db } = await openSiteDatabase(dir, { dbUrl: options.dbUrl, poolSize: 1, readOnly: true, snapshotDir: staging });
    let manifest: BackupManifest;
    try {
      manifest = newManifest(db.dialect.name, at);
      progress(`database (${manifest.engine})`);
      await db.backup(join(staging, manifest.database), percentSteps(progress, 'database'));
    } finally {
      await db.close();
    }
    await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);

    const siteParts = [relative(paths.root, paths.config)];
    // Files in a bucket are downloaded beside the dump, into the folders a local site would have.
    const storage = (await loadSiteConfig(paths.config)).file_storage;
    const filesRoot = storage.backend === 's3' ? join(staging, 'bucket') : paths.root;
    if (storage.backend === 's3') {
      // Loaded on use: the AWS SDK is heavy, and only bucket-backed sites need it.
      const { downloadBucketFiles } = await import('./bucket-backup.js');
      progress(`files from the bucket (${await downloadBucketFiles(storage, filesRoot)})`);
    }
    const fileParts: string[] = [];
    for (const folder of [paths.publicFiles, paths.privateFiles]) {
      const part = relative(paths.root, folder);
      if (await exists(join(filesRoot, part))) fileParts.push(part);
    }
    const totalBytes = (await sizeOf(siteParts.map((part) => join(paths.root, part)))) + (await sizeOf(fileParts.map((part) => join(filesRoot, part))));
    progress(`site_config.json and files (${megabytes(totalBytes)})`);
    const filesDone = percentSteps(progress, 'files');
    // The archive starts with the dump; the files' share of it is what comes after.
    const dumpBytes = (await stat(join(staging, manifest.database))).size;
    await writeArchive(
      out,
      [
        { cwd: staging, paths: [MANIFEST_FILE, manifest.database] },
        { cwd: paths.root, paths: siteParts },
        ...(fileParts.length > 0 ? [{ cwd: filesRoot, paths: fileParts }] : []),
      ],
      (bytes) => filesDone(totalBytes === 0 ? 0 : (bytes - dumpBytes) / totalBytes),
    );
    filesDone(1);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return out;
}
