import type { FieldType } from './field-type.js';

/** A table field type: child rows live in the child DocType's table and are handled by the document layer. */
function createTableType(name: string): FieldType {
  return {
    name,
    isTable: true,
    options: 'child-doctype',
    column: () => undefined,
    coerce: (value) => value,
    // A required table is missing when it has no rows.
    isEmpty: (value) => (Array.isArray(value) ? value.length === 0 : value === undefined || value === null),
  };
}

/** Table and Table MultiSelect. */
export const tableTypes: readonly FieldType[] = ['Table', 'Table MultiSelect'].map(createTableType);
