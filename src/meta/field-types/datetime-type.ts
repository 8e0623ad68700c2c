import { formatDate, now } from '../../datetime/clock.js';
import { displayDatetime, formatDisplayTime, formatStoredDatetime, parseDatetime, partsFromDriverDate, partsFromEpoch } from '../../datetime/parse.js';
import { invalidValue, temporalText } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';

/**
 * Datetime: stored as `YYYY-MM-DD HH:MM:SS.ffffff` in the site's zone (six digits, so text order is
 * time order), returned without a zero fraction. Input with `Z` or an offset is converted into the
 * site's zone; `""` is NULL; the default `now` is the current time.
 */
export const datetimeType: FieldType = {
  name: 'Datetime',
  emptyValue: '0001-01-01 00:00:00.000000',
  column: () => ({ kind: 'datetime' }),
  coerce(value, field, ctx) {
    if (value instanceof Date && !Number.isNaN(value.getTime())) {
      return formatStoredDatetime(partsFromEpoch(value.getTime(), ctx.timeZone));
    }
    const text = temporalText(value, field);
    if (text === null) return null;
    const stored = parseDatetime(text, ctx.timeZone);
    if (stored === undefined) throw invalidValue(field, value);
    return stored;
  },
  fromDb(value) {
    if (value instanceof Date) {
      const parts = partsFromDriverDate(value);
      return `${formatDate(parts)} ${formatDisplayTime(parts)}`;
    }
    return typeof value === 'string' ? displayDatetime(value) : value;
  },
  resolveDefault(text, _field, ctx) {
    return text.trim().toLowerCase() === 'now' ? now(ctx.timeZone) : text;
  },
};
