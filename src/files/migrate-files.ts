import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Progress } from '../site/install-core.js';
import { loadSiteConfig } from '../site/site-config.js';
import { sitePaths } from '../site/site-paths.js';
import type { FileStore } from './file-store.js';
import type { FileStorageConfig, S3FileStorage } from './file-storage-config.js';
import { LocalFileStore } from './local-file-store.js';

/** The two backends a site's files can be moved between. */
export type FileBackend = 'local' | 's3';

/** What migrateFiles did. */
export interface FileMigrationSummary {
  readonly copied: number;
  /** Already in the target with the same hash (an earlier, interrupted run). */
  readonly skipped: number;
  readonly bytes: number;
}

/** Options of migrateFiles. */
export interface MigrateFilesOptions {
  readonly to: FileBackend;
  readonly progress?: Progress;
}

async function hashOf(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The sha256 of an object: from its metadata when the store keeps it, else by reading it; undefined when missing. */
async function storedHash(store: FileStore, key: string): Promise<string | undefined> {
  const info = await store.stat(key);
  if (!info) return undefined;
  if (info.contentHash) return info.contentHash;
  const opened = await store.open(key);
  return opened ? hashOf(opened.stream) : undefined;
}

/** The bucket settings of `file_storage`, or a message saying where to write them. */
function bucketSettings(storage: FileStorageConfig, file: string): S3FileStorage {
  const s3 = storage.backend === 's3' ? storage : storage.s3;
  if (!s3) {
    throw new Error(
      `${file} has no bucket settings: add "file_storage": {"backend": "local", "bucket": ..., "region": ..., "endpoint": ..., ` +
        '"access_key_id": ..., "secret_access_key": ...} (keep "backend": "local" until the copy is done), then run this again',
    );
  }
  return s3;
}

/** One file: copied unless the target holds the same bytes, then read back and checked. */
async function copyOne(source: FileStore, target: FileStore, key: string): Promise<{ copied: boolean; bytes: number }> {
  const expected = await storedHash(source, key);
  if (expected === undefined) throw new Error('it vanished from the source while copying');
  if ((await storedHash(target, key)) === expected) return { copied: false, bytes: 0 };
  const opened = await source.open(key);
  if (!opened) throw new Error('it vanished from the source while copying');
  const written = await target.put(key, opened.stream);
  const readBack = await storedHash(target, key);
  if (written.contentHash !== expected || readBack !== expected) {
    throw new Error(`the copy's sha256 ${readBack ?? written.contentHash} differs from the source's ${expected}`);
  }
  return { copied: true, bytes: written.size };
}

/**
 * Copies every stored file of the site in `dir` to the backend `to` from the other one
 * (docs/files.md "Moving files between backends"): keys stay the same, so File documents need
 * no change. Resumable: a file the target already holds with the same sha256 is skipped. Each copy
 * is read back and checked against the source's hash. Nothing is deleted from the source. Fails,
 * after trying every file, when any could not be copied.
 */
export async function migrateFiles(dir: string, options: MigrateFilesOptions): Promise<FileMigrationSummary> {
  const progress = options.progress ?? (() => {});
  const paths = sitePaths(dir);
  const config = await loadSiteConfig(paths.config);
  const settings = bucketSettings(config.file_storage, paths.config);
  // Loaded on use: the AWS SDK is heavy, and `fw` loads this module for every command.
  const { S3FileStore } = await import('./s3-file-store.js');
  const bucket = new S3FileStore(settings);
  const disk = new LocalFileStore(paths);
  const [source, target] = options.to === 's3' ? [disk, bucket] : [bucket, disk];
  const from = options.to === 's3' ? `${paths.publicFiles} and ${paths.privateFiles}` : bucket.location;
  const to = options.to === 's3' ? bucket.location : `${paths.publicFiles} and ${paths.privateFiles}`;
  try {
    const keys: string[] = [];
    for await (const key of source.keys()) keys.push(key);
    progress(`${keys.length} files from ${from} to ${to}`);
    let copied = 0;
    let skipped = 0;
    let bytes = 0;
    const failures: string[] = [];
    for (const [index, key] of keys.entries()) {
      try {
        const done = await copyOne(source, target, key);
        if (done.copied) copied += 1;
        else skipped += 1;
        bytes += done.bytes;
        progress(`[${index + 1}/${keys.length}] ${key}: ${done.copied ? `copied (${done.bytes} bytes)` : 'already there'}`);
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? `${err.message} (${err.cause.message})` : (err as Error).message;
        failures.push(`${key}: ${cause}`);
        progress(`[${index + 1}/${keys.length}] ${key}: FAILED: ${cause}`);
      }
    }
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} of ${keys.length} files could not be copied (first: ${failures[0]}). Nothing was removed from ` +
          `${from}. Fix the cause and run the same command again: files already copied are skipped.`,
      );
    }
    return { copied, skipped, bytes };
  } finally {
    bucket.close();
  }
}
