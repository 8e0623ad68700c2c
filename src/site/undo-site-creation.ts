import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { engineOf } from '../storage/open-database.js';
import { resolveDbUrl, type SitePaths } from './site-paths.js';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Notes what a site folder holds before a site is created in it and returns the undo of that
 * creation: it removes the config, a SQLite file it made and the folders it made, and leaves
 * whatever was there before alone. A creation that failed half way (an unreachable database, a
 * failed install) must not leave a folder that later commands take for a site.
 */
export async function prepareUndoOfSiteCreation(paths: SitePaths, dbUrl: string): Promise<() => Promise<void>> {
  const databaseFiles = engineOf(dbUrl).databaseFiles(resolveDbUrl(dbUrl, paths));
  // Outermost first: a folder that did not exist is removed whole, with everything made inside it.
  const folders = [paths.root, dirname(paths.publicFiles), paths.publicFiles, dirname(paths.privateFiles), paths.privateFiles];
  const newFolders: string[] = [];
  for (const folder of folders) {
    if (!(await exists(folder)) && !newFolders.some((f) => folder.startsWith(`${f}/`))) newFolders.push(folder);
  }
  const newDatabaseFiles: string[] = [];
  for (const file of databaseFiles) if (!(await exists(file))) newDatabaseFiles.push(file);

  return async () => {
    await rm(paths.config, { force: true });
    for (const file of newDatabaseFiles) await rm(file, { force: true });
    for (const folder of newFolders) await rm(folder, { recursive: true, force: true });
  };
}
