import type { FileStore } from './file-store.js';
import type { FileStorageConfig } from './file-storage-config.js';
import { LocalFileStore, type FileFolders } from './local-file-store.js';
import type { StorageFailureReport } from './storage-failure.js';

/**
 * The file store of a site: the one place that picks where bytes live, from `file_storage` in
 * site_config.json (docs/files.md "Storage backends"). `openSite` calls it once per site;
 * everything that reads or writes files (the File controller, uploads, file routes, file methods)
 * is handed that one store. The AWS SDK is loaded only for a site that uses a bucket: it takes a
 * noticeable part of a second to load, which every command and every local site would pay.
 */
export async function openFileStore(folders: FileFolders, storage: FileStorageConfig, report: StorageFailureReport): Promise<FileStore> {
  if (storage.backend === 's3') {
    const { S3FileStore } = await import('./s3-file-store.js');
    return new S3FileStore(storage, report);
  }
  return new LocalFileStore({ publicFiles: folders.publicFiles, privateFiles: folders.privateFiles }, report);
}
