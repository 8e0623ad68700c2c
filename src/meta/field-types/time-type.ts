import { now } from '../../datetime/clock.js';
import { displayTime, formatStoredTime, parseTime } from '../../datetime/parse.js';
import { invalidValue, temporalText } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';

/**
 * Time: a time of day, stored `HH:MM:SS.ffffff` and returned `HH:MM:SS[.ffffff]`; `""` is NULL;
 * the default `now` is the current time of day in the site's zone.
 */
export const timeType: FieldType = {
  name: 'Time',
  emptyValue: '00:00:00.000000',
  column: () => ({ kind: 'time' }),
  coerce(value, field) {
    const text = temporalText(value, field);
    if (text === null) return null;
    const parts = parseTime(text);
    if (parts === undefined) throw invalidValue(field, value);
    return formatStoredTime(parts);
  },
  fromDb: (value) => (typeof value === 'string' ? displayTime(value) : value),
  resolveDefault(text, _field, ctx) {
    // The stored timestamp's time part, after `YYYY-MM-DD `.
    return text.trim().toLowerCase() === 'now' ? now(ctx.timeZone).slice(11) : text;
  },
};
