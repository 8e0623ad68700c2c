import { DuplicateEntryError, UniqueValidationError } from '../errors/index.js';

/**
 * The domain error for a unique-constraint violation on `table.column`: a clash on `name` is a
 * duplicate document (409), any other column a unique-field violation (417). The document service
 * rewrites the message with the DocType's labels; `details` keeps the raw facts for it.
 */
export function uniqueViolation(table: string | undefined, column: string | undefined, cause: unknown): Error {
  const details = { table, column };
  if (column === 'name' || column === undefined) {
    return new DuplicateEntryError('Duplicate entry', { details, cause });
  }
  return new UniqueValidationError(`${column} must be unique`, { details, cause });
}
