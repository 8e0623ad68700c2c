import { invalidValue, rejectContainer } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';
import { numberFromDb } from './numeric.js';

// A Map, not an object literal, so "constructor" and friends are not found on a prototype.
const TEXT_VALUES: ReadonlyMap<string, 0 | 1> = new Map([
  ['', 0],
  ['0', 0],
  ['1', 1],
  ['false', 0],
  ['true', 1],
]);

/**
 * Check: stored as 0 or 1. Takes booleans, 0/1 and "0"/"1"/"true"/"false"; empty is 0. Never
 * counts as missing for `reqd` (0 is a real answer).
 */
export const checkType: FieldType = {
  name: 'Check',
  numeric: true,
  emptyValue: 0,
  column: () => ({ kind: 'int' }),
  coerce(value, field) {
    if (value === undefined || value === null) return 0;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === 0 || value === 1) return value;
    if (typeof value === 'string') {
      const v = TEXT_VALUES.get(value.trim().toLowerCase());
      if (v !== undefined) return v;
    }
    rejectContainer(value, field);
    throw invalidValue(field, value);
  },
  fromDb: (value) => numberFromDb(value),
  isEmpty: () => false,
  alwaysAnswered: true,
};
