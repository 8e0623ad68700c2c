import BetterSqlite3 from 'better-sqlite3';
import type { BackupProgress } from '../database.js';

type Connection = BetterSqlite3.Database;

/** Copying everything that is left in one step, which nothing can interrupt. */
const ALL_PAGES = 0x7fffffff;

/** About a hundred steps, so progress moves a percent at a time; never fewer than 100 pages each. */
function pagesPerStep(totalPages: number): number {
  return Math.max(100, Math.ceil(totalPages / 100));
}

/**
 * Copies the database `source` is connected to into the file `toFile` with SQLite's online backup
 * API. A write through another connection restarts the copy; once that happened, the rest is
 * copied in one step, so a busy site's backup still finishes.
 */
export async function copyDatabase(source: Connection, toFile: string, onProgress?: BackupProgress): Promise<void> {
  let remainingBefore = Number.POSITIVE_INFINITY;
  let restarted = false;
  await source.backup(toFile, {
    progress: ({ totalPages, remainingPages }) => {
      if (remainingPages > remainingBefore) restarted = true;
      remainingBefore = remainingPages;
      onProgress?.(totalPages === 0 ? 1 : (totalPages - remainingPages) / totalPages);
      return restarted ? ALL_PAGES : pagesPerStep(totalPages);
    },
  });
  onProgress?.(1);
}

/**
 * Copies the SQLite file `fromFile` over the database at `toFile` page by page. The copy goes
 * through SQLite's locking and journal, so connections open on `toFile` see the new contents and a
 * stale write-ahead log cannot survive it.
 */
export async function restoreDatabaseFile(fromFile: string, toFile: string, onProgress?: BackupProgress): Promise<void> {
  let source: Connection | undefined;
  try {
    source = new BetterSqlite3(fromFile, { fileMustExist: true });
    source.prepare('select count(*) from sqlite_master').get();
  } catch (err) {
    source?.close();
    throw new Error(`${fromFile} is not a readable SQLite database: ${(err as Error).message}`, { cause: err });
  }
  try {
    await copyDatabase(source, toFile, onProgress);
  } finally {
    source.close();
  }
}
