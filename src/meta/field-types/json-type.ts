import { invalidValue } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';

function stringify(value: unknown, original: unknown, fail: (v: unknown) => Error): string {
  try {
    // JSON.stringify throws on cycles and bigints; both are the client's malformed value.
    return JSON.stringify(value);
  } catch {
    throw fail(original);
  }
}

/**
 * JSON: any JSON value, stored as compact text. Objects, arrays, numbers and booleans are
 * serialised; a string must itself be JSON text (it is re-serialised compactly); `""` is NULL.
 */
export const jsonType: FieldType = {
  name: 'JSON',
  column: () => ({ kind: 'json' }),
  coerce(value, field) {
    const fail = (v: unknown) => invalidValue(field, v);
    if (value === undefined || value === null) return null;
    if (typeof value === 'string') {
      if (value.trim() === '') return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw fail(value);
      }
      return stringify(parsed, value, fail);
    }
    if (typeof value === 'number' && !Number.isFinite(value)) throw fail(value);
    if (typeof value === 'object' || typeof value === 'number' || typeof value === 'boolean') {
      return stringify(value, value, fail);
    }
    throw fail(value);
  },
  fromDb(value) {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      // Text written before the column was JSON, or by hand: return it rather than fail the read.
      return value;
    }
  },
};
