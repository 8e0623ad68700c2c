/** Int and Long Int: integral numbers within the range of their column. */
import { ValidationError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import { fieldLabel, invalidValue } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';
import { createNumericType } from './numeric.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// The reference widens Int to bigint when `length` asks for more than int(11)'s digits.
function isBigInt(field: DocField): boolean {
  return (field.length ?? 0) > 11;
}

function integral(min: number, max: number) {
  return (n: number, field: DocField, original: unknown): number => {
    if (!Number.isInteger(n)) throw invalidValue(field, original);
    if (n < min || n > max) {
      throw new ValidationError(`${fieldLabel(field)}: ${n} is out of range (${min} to ${max})`);
    }
    return n;
  };
}

const int32 = integral(INT32_MIN, INT32_MAX);
// JS numbers are exact only up to 2^53, so that, not bigint's 2^63, is the limit we can keep.
const safe = integral(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

/** Int: a signed 32-bit integer, or a safe integer in a bigint column when `length` > 11. */
export const intType: FieldType = createNumericType({
  name: 'Int',
  column: (field) => ({ kind: isBigInt(field) ? 'bigint' : 'int' }),
  refine: (n, field, original) => (isBigInt(field) ? safe : int32)(n, field, original),
});

/** Long Int: a safe integer in a bigint column. */
export const longIntType: FieldType = createNumericType({
  name: 'Long Int',
  column: () => ({ kind: 'bigint' }),
  refine: safe,
});
