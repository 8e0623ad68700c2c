import type { SitePaths } from '../site/site-paths.js';
import type { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';

/**
 * The file store of a site: the one place that picks where bytes live (docs/files.md shows where an
 * object store plugs in). The local store holds no state beyond its folders, so every caller
 * opening its own sees the same files.
 */
export function openFileStore(paths: SitePaths): FileStore {
  return new LocalFileStore({ publicFiles: paths.publicFiles, privateFiles: paths.privateFiles });
}
