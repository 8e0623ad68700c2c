import { MandatoryError, ServiceUnavailableError } from '../../errors/index.js';
import { readOnlyRefusal } from '../read-only-refusal.js';
import { uniqueViolation } from '../unique-violation.js';

interface SqliteDriverError {
  code?: string;
  message: string;
}

/** Translates a better-sqlite3 error into a domain error, or returns it unchanged. */
export function translateSqliteError(err: unknown): unknown {
  const e = err as SqliteDriverError;
  if (typeof e?.code !== 'string') return err;
  if (e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    // An expression index names itself instead of columns: "UNIQUE constraint failed: index
    // 'tabUser_name_lower'" is the case-insensitive index on a name (install-core.ts), a duplicate name.
    const expression = /failed: index '(.+)_name_lower'$/.exec(e.message);
    if (expression) return uniqueViolation(expression[1], 'name', err);
    // "UNIQUE constraint failed: tabToDo.name" (several columns are comma-separated)
    const target = /failed: ([^,]+)/.exec(e.message)?.[1] ?? '';
    const dot = target.lastIndexOf('.');
    return uniqueViolation(target.slice(0, dot) || undefined, target.slice(dot + 1) || undefined, err);
  }
  if (e.code === 'SQLITE_CONSTRAINT_NOTNULL') {
    // "NOT NULL constraint failed: tabToDo.status"
    const target = /failed: (.+)$/.exec(e.message)?.[1] ?? '';
    const dot = target.lastIndexOf('.');
    const column = target.slice(dot + 1) || undefined;
    const details = { table: target.slice(0, Math.max(dot, 0)) || undefined, column };
    return new MandatoryError(`${column ?? 'A value'} is mandatory`, { details, cause: err });
  }
  // A write on the read-only connection that serves read units (GET requests). Only the plain
  // code: the SQLITE_READONLY_* kinds (a moved or unwritable file, recovery) are server faults.
  if (e.code === 'SQLITE_READONLY') return readOnlyRefusal(err);
  if (e.code === 'SQLITE_BUSY' || e.code === 'SQLITE_LOCKED') {
    return new ServiceUnavailableError('The database is busy; try again', { cause: err });
  }
  return err;
}
