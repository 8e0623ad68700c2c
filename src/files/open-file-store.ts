import type { FileStore } from './file-store.js';
import { LocalFileStore, type FileFolders } from './local-file-store.js';
import type { StorageFailureReport } from './storage-failure.js';

/**
 * The file store of a site: the one place that picks where bytes live (docs/files.md shows where an
 * object store plugs in). `openSite` calls it once per site; everything that reads or writes files
 * (the File controller, uploads, file routes, file methods) is handed that one store.
 */
export function openFileStore(folders: FileFolders, report: StorageFailureReport): FileStore {
  return new LocalFileStore({ publicFiles: folders.publicFiles, privateFiles: folders.privateFiles }, report);
}
