import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { S3FileStorage } from '../files/file-storage-config.js';
import { isStorableName, localFile, parseFileUrl } from '../files/file-url.js';
import { S3FileStore } from '../files/s3-file-store.js';

/** The folder, under a backup's staging root, of a key: the same place as on a local site. */
function folderOf(root: string, isPrivate: boolean): string {
  return isPrivate ? join(root, 'private', 'files') : join(root, 'public', 'files');
}

/**
 * Downloads every object of a site's bucket into `root/public/files` and `root/private/files`, the
 * layout a backup archive holds whatever the backend (docs/files.md "Backups"). Answers the count.
 */
export async function downloadBucketFiles(storage: S3FileStorage, root: string): Promise<number> {
  const store = new S3FileStore(storage);
  let count = 0;
  try {
    for (const isPrivate of [false, true]) await mkdir(folderOf(root, isPrivate), { recursive: true });
    for await (const key of store.keys()) {
      const file = parseFileUrl(`/${key}`);
      const opened = file && (await store.open(key));
      if (!file || !opened) continue;
      await pipeline(opened.stream, createWriteStream(join(folderOf(root, file.isPrivate), file.name), { flags: 'wx' }));
      count += 1;
    }
  } finally {
    store.close();
  }
  return count;
}

/**
 * Makes a site's bucket hold exactly the files under `root/public/files` and `root/private/files`
 * (a restore): each is uploaded, then objects the backup does not hold are removed. Answers the count.
 */
export async function uploadBucketFiles(storage: S3FileStorage, root: string): Promise<number> {
  const store = new S3FileStore(storage);
  const restored = new Set<string>();
  try {
    for (const isPrivate of [false, true]) {
      const entries = await readdir(folderOf(root, isPrivate), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile() || !isStorableName(entry.name)) continue;
        const { key } = localFile(entry.name, isPrivate);
        await store.put(key, createReadStream(join(folderOf(root, isPrivate), entry.name)));
        restored.add(key);
      }
    }
    const stale: string[] = [];
    for await (const key of store.keys()) if (!restored.has(key)) stale.push(key);
    for (const key of stale) await store.remove(key);
  } finally {
    store.close();
  }
  return restored.size;
}
