import { DataError } from '../errors/index.js';
import { endOfDay, normaliseDate, parseDate, parseDatetime, parseTime, formatStoredTime, startOfDay } from '../datetime/parse.js';
import { hasNul } from '../meta/field-types/coerce-helpers.js';
import type { ResolvedColumn } from './resolved-column.js';

/*
 * Filter values turned into the stored form of the column they are compared with, so that the
 * comparison means the same on every engine: numbers for numeric columns, `YYYY-MM-DD`,
 * `YYYY-MM-DD HH:MM:SS.ffffff` and `HH:MM:SS.ffffff` for temporal ones, text otherwise.
 */

const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function invalid(column: ResolvedColumn, value: unknown, what: string): DataError {
  return new DataError(`Invalid ${what} for ${column.name}: ${show(value)}`);
}

/** True for the values that mean "empty": null, undefined and `""`. */
export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

function toNumber(column: ResolvedColumn, value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC_TEXT.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw invalid(column, value, 'number');
  // PostgreSQL refuses a fractional or oversized parameter for an integer column outright.
  const limit = column.integerLimit;
  if (limit !== undefined && (!Number.isInteger(n) || Math.abs(n) > limit)) throw invalid(column, value, 'integer');
  return n;
}

function toText(column: ResolvedColumn, value: unknown): string {
  if (typeof value === 'string') {
    if (hasNul(value)) throw invalid(column, value, 'value (NUL characters are not allowed)');
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  throw invalid(column, value, 'value');
}

/**
 * The stored form of `value` for comparison with `column`; a blank value becomes the column's
 * empty value. A value that does not fit the column is a 417 DataError.
 */
export function toStored(column: ResolvedColumn, value: unknown, timeZone: string): string | number {
  if (isBlank(value)) return column.emptyValue;
  switch (column.kind) {
    case 'number':
      return toNumber(column, value);
    case 'text':
      return toText(column, value);
    case 'date': {
      const date = typeof value === 'string' ? normaliseDate(value, timeZone) : undefined;
      if (date === undefined) throw invalid(column, value, 'date');
      return date;
    }
    case 'datetime': {
      const stamp = typeof value === 'string' ? parseDatetime(value, timeZone) : undefined;
      if (stamp === undefined) throw invalid(column, value, 'datetime');
      return stamp;
    }
    case 'time': {
      const time = typeof value === 'string' ? parseTime(value) : undefined;
      if (time === undefined) throw invalid(column, value, 'time');
      return formatStoredTime(time);
    }
  }
}

/** The items of an `in`/`not in` value: a list, a comma-separated string or a JSON list string. */
export function toList(column: ResolvedColumn, value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === null || value === undefined) return [];
  if (typeof value === 'number') return [value];
  if (typeof value !== 'string') throw invalid(column, value, 'list');
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON after all: a name may start with a bracket.
    }
  }
  return text === '' ? [] : text.split(',').map((s) => s.trim());
}

/**
 * The bounds of a date range on a temporal column: a date column gets the dates (a datetime bound
 * is truncated), a datetime column widens a date-only `from` to its first and `to` to its last
 * microsecond (docs/api.md "Lists" `between`).
 */
export function dateBounds(column: ResolvedColumn, from: unknown, to: unknown, timeZone: string): [string | number, string | number] {
  if (column.kind !== 'datetime') return [toStored(column, from, timeZone), toStored(column, to, timeZone)];
  const widen = (value: unknown, edge: (date: string) => string): string | number =>
    typeof value === 'string' && parseDate(value.trim()) ? edge(normaliseDate(value, timeZone) as string) : toStored(column, value, timeZone);
  return [widen(from, startOfDay), widen(to, endOfDay)];
}
