import { copyFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../database.js';
import { SqliteDatabase } from './sqlite-database.js';

/** SQLite's answers when a read-only connection cannot set up WAL's shared memory beside the file. */
function isReadOnlyRefusal(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN'))) return true;
    if (/readonly database|unable to open database/i.test(e.message)) return true;
  }
  return false;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Opens a SQLite database for reading only, writing nothing beside it. A WAL-mode database in a
 * folder this process cannot write (a read-only volume, another owner) cannot be opened in place
 * when its `-shm` file is absent, since SQLite must create it; then no connection has the file
 * open for writing (it would have left a `-wal` file), so the file alone is the whole database
 * and a copy of it in `snapshotDir` is read instead.
 */
export async function openSqliteReadOnly(path: string, snapshotDir: string | undefined): Promise<Database> {
  let db: SqliteDatabase | undefined;
  try {
    db = new SqliteDatabase(path, { readOnly: true });
    await db.read((q) => q.all({ sql: 'select 1 from sqlite_master limit 1', parameters: [] }));
    return db;
  } catch (err) {
    await db?.close().catch(() => {});
    if (!snapshotDir || !isReadOnlyRefusal(err) || (await exists(`${path}-wal`))) throw err;
  }
  const copy = join(snapshotDir, 'read-only-snapshot.sqlite');
  await copyFile(path, copy);
  return new SqliteDatabase(copy, { readOnly: true });
}
