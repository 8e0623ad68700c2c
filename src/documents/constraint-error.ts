import { DuplicateEntryError, FwError, UniqueValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/**
 * A constraint violation from the repository reworded with the DocType's words: a clash on the
 * name (or on the naming field) is 409 "<DocType> <name> already exists", a unique index 417
 * "<Label> must be unique". Anything else is returned unchanged.
 */
export function describeConstraintError(meta: Meta, doc: Doc, err: unknown): unknown {
  if (!(err instanceof FwError)) return err;
  const column = err.details.column as string | undefined;
  const table = err.details.table as string | undefined;
  const namingField = meta.def.autoname?.startsWith('field:') ? meta.def.autoname.slice(6).trim() : undefined;
  const isOwnTable = table === undefined || table === meta.tableName;
  if (err instanceof DuplicateEntryError || (err instanceof UniqueValidationError && column === namingField && isOwnTable)) {
    return new DuplicateEntryError(`${meta.name} ${String(doc.name)} already exists`, {
      doctype: meta.name,
      messages: [{ message: `${meta.name} ${String(doc.name)} already exists`, title: 'Duplicate Name' }],
      cause: err,
    });
  }
  if (err instanceof UniqueValidationError && column && isOwnTable) {
    const label = meta.label(column);
    return new UniqueValidationError(`${label} must be unique: ${String(doc[column])} is already used`, {
      doctype: meta.name,
      details: err.details,
      cause: err,
    });
  }
  return err;
}
