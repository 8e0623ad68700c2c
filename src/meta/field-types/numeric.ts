/**
 * What the numeric field types share: numbers and numeric strings in, a finite JS number out;
 * empty input is 0 (the reference stores 0 for empty numeric fields); `non_negative` is checked.
 */
import { NonNegativeError } from '../../errors/index.js';
import type { ColumnSpec } from '../../storage/dialect.js';
import type { DocField } from '../doctype.js';
import { fieldLabel, invalidValue, rejectContainer } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';

// Plain decimal notation with an optional exponent; no hex, no thousands separators, no "Infinity".
const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Parses a JSON number or numeric string into a finite number; null, undefined and "" are 0. */
export function parseNumber(value: unknown, field: DocField): number {
  let n: number | undefined;
  if (value === undefined || value === null) n = 0;
  else if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') n = 0;
    else if (NUMERIC_TEXT.test(text)) n = Number(text);
  } else rejectContainer(value, field);
  if (n === undefined || !Number.isFinite(n)) throw invalidValue(field, value);
  // -0 would print as 0 but compare oddly; store the plain zero.
  return n === 0 ? 0 : n;
}

/** A number read from the driver (strings from PostgreSQL numeric/bigint, bigints) as a JS number. */
export function numberFromDb(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isNaN(n) ? value : n;
  }
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** How one numeric field type differs from the others. */
export interface NumericTypeSpec {
  readonly name: string;
  readonly column: (field: DocField) => ColumnSpec;
  /** Type rules after parsing (integral, range, clamping); returns the number to store. */
  readonly refine?: (n: number, field: DocField, original: unknown) => number;
}

/** Builds a numeric field type from its column and its extra rules. */
export function createNumericType(spec: NumericTypeSpec): FieldType {
  return {
    name: spec.name,
    numeric: true,
    emptyValue: 0,
    column: spec.column,
    coerce(value, field) {
      const n = parseNumber(value, field);
      return spec.refine ? spec.refine(n, field, value) : n;
    },
    validate(value, field) {
      if (field.non_negative && typeof value === 'number' && value < 0) {
        throw new NonNegativeError(`${fieldLabel(field)} cannot be negative`);
      }
    },
    fromDb: (value) => numberFromDb(value),
  };
}
