import type { SitePaths } from '../site/site-paths.js';
import type { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';
import type { StorageFailureReport } from './storage-failure.js';

/** Where each open site's stores report folders they cannot write, keyed by the site's own paths object. */
const reporters = new WeakMap<SitePaths, StorageFailureReport>();

/** Makes every store opened for `paths` (site.paths) report write failures to `report` (the site's log). */
export function reportStorageFailuresTo(paths: SitePaths, report: StorageFailureReport): void {
  reporters.set(paths, report);
}

/**
 * The file store of a site: the one place that picks where bytes live (docs/files.md shows where an
 * object store plugs in). The local store holds no state beyond its folders, so every caller
 * opening its own sees the same files.
 */
export function openFileStore(paths: SitePaths): FileStore {
  const report: StorageFailureReport = (err, folder) => reporters.get(paths)?.(err, folder);
  return new LocalFileStore({ publicFiles: paths.publicFiles, privateFiles: paths.privateFiles }, report);
}
