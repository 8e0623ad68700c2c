import { formatDate, today } from '../../datetime/clock.js';
import { normaliseDate, partsFromDriverDate, partsFromEpoch } from '../../datetime/parse.js';
import { invalidValue, temporalText } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';

/** The form fw stores dates in; such a value needs no parsing on its way out. */
const STORED_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Date: `YYYY-MM-DD`. Takes a date, or a datetime truncated to its date (one carrying an offset is
 * first converted into the site's zone); `""` is NULL; the default `Today` is today in the site's zone.
 */
export const dateType: FieldType = {
  name: 'Date',
  emptyValue: '0001-01-01',
  column: () => ({ kind: 'date' }),
  coerce(value, field, ctx) {
    if (value instanceof Date && !Number.isNaN(value.getTime())) {
      return formatDate(partsFromEpoch(value.getTime(), ctx.timeZone));
    }
    const text = temporalText(value, field);
    if (text === null) return null;
    const date = normaliseDate(text, ctx.timeZone);
    if (date === undefined) throw invalidValue(field, value);
    return date;
  },
  fromDb(value) {
    if (value instanceof Date) return formatDate(partsFromDriverDate(value));
    if (typeof value !== 'string' || STORED_DATE.test(value)) return value;
    // Stored dates are already zone-free, so the zone never matters here.
    return normaliseDate(value, 'UTC') ?? value;
  },
  resolveDefault(text, _field, ctx) {
    return text.trim().toLowerCase() === 'today' ? today(ctx.timeZone) : text;
  },
};
