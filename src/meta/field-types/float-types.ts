/** The decimal types: Float, Currency, Percent, Duration (seconds) and Rating (a 0-1 fraction). */
import { NonNegativeError } from '../../errors/index.js';
import type { ColumnSpec } from '../../storage/dialect.js';
import { fieldLabel } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';
import { createNumericType } from './numeric.js';

const decimal = (): ColumnSpec => ({ kind: 'decimal' });

/** Float, Currency, Percent: any finite number (precision is a display matter). */
export const floatTypes: readonly FieldType[] = ['Float', 'Currency', 'Percent'].map((name) => createNumericType({ name, column: decimal }));

/** Duration: a number of seconds, never negative. */
export const durationType: FieldType = createNumericType({
  name: 'Duration',
  column: decimal,
  refine: (n, field) => {
    if (n < 0) throw new NonNegativeError(`${fieldLabel(field)} cannot be negative`);
    return n;
  },
});

/** Rating: a fraction clamped into 0..1 on save, as the reference does. */
export const ratingType: FieldType = createNumericType({
  name: 'Rating',
  column: decimal,
  refine: (n) => Math.min(1, Math.max(0, n)),
});
