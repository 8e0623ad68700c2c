/**
 * Pure parsing and formatting of Date, Datetime and Time values, shared by the field types and the
 * query compiler. Stored forms sort correctly as text: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS.ffffff`
 * and `HH:MM:SS.ffffff`; display forms drop a zero fraction (docs/api.md).
 */
import { formatDate, wallClock } from './clock.js';

/** A calendar date. */
export interface DateParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** A time of day with microseconds. */
export interface TimeParts {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly microsecond: number;
}

/** A wall-clock timestamp. */
export type DatetimeParts = DateParts & TimeParts;

/** A parsed datetime text and the UTC offset it carried, in minutes, if any. */
export interface ParsedDatetime {
  readonly parts: DatetimeParts;
  readonly offsetMinutes: number | undefined;
}

// Month and day may have one digit and hours too: harmless leniency for hand-written input.
const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;
// An offset is only meaningful with a time, so it sits inside the optional time group.
const DATETIME_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ Tt](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** True for leap years of the proleptic Gregorian calendar. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Number of days in `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True when the parts name a real calendar date between 0001-01-01 and 9999-12-31. */
export function isValidDate(p: DateParts): boolean {
  if (p.year < 1 || p.year > 9999 || p.month < 1 || p.month > 12) return false;
  return p.day >= 1 && p.day <= daysInMonth(p.year, p.month);
}

function isValidTime(p: TimeParts): boolean {
  return p.hour <= 23 && p.minute <= 59 && p.second <= 59;
}

function micros(fraction: string | undefined): number {
  return fraction ? Number(fraction.padEnd(6, '0')) : 0;
}

/** Parses `YYYY-MM-DD` into a real calendar date, or undefined. */
export function parseDate(text: string): DateParts | undefined {
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const p = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return isValidDate(p) ? p : undefined;
}

/** Parses `HH:MM`, `HH:MM:SS` or `HH:MM:SS.ffffff` (hours 0-23), or undefined. */
export function parseTime(text: string): TimeParts | undefined {
  const m = TIME_RE.exec(text.trim());
  if (!m) return undefined;
  const p = { hour: Number(m[1]), minute: Number(m[2]), second: Number(m[3] ?? 0), microsecond: micros(m[4]) };
  return isValidTime(p) ? p : undefined;
}

function parseOffset(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === 'Z' || text === 'z') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 23 || minutes > 59) return Number.NaN;
  return sign * (hours * 60 + minutes);
}

/**
 * Parses a date or datetime text (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.ffffff]]`, `T` separator,
 * optional `Z` or `±hh:mm`) into wall-clock parts and the offset it carried, or undefined.
 */
export function parseDatetimeParts(text: string): ParsedDatetime | undefined {
  const m = DATETIME_RE.exec(text.trim());
  if (!m) return undefined;
  const parts: DatetimeParts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
    microsecond: micros(m[7]),
  };
  const offsetMinutes = parseOffset(m[8]);
  if (!isValidDate(parts) || !isValidTime(parts) || Number.isNaN(offsetMinutes)) return undefined;
  return { parts, offsetMinutes };
}

function utcMillis(p: DatetimeParts): number {
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 onto 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(p.hour, p.minute, p.second, 0);
  return d.getTime();
}

/** Wall-clock parts in `timeZone` of the instant `epochMs` (microseconds from the milliseconds). */
export function partsFromEpoch(epochMs: number, timeZone: string): DatetimeParts {
  const ms = Math.floor(epochMs);
  return { ...wallClock(ms, timeZone), microsecond: (((ms % 1000) + 1000) % 1000) * 1000 };
}

const FIRST_SAFE_INSTANT = utcMillis({ year: 1, month: 1, day: 2, hour: 0, minute: 0, second: 0, microsecond: 0 });

/**
 * Parses a date or datetime text into the stored form `YYYY-MM-DD HH:MM:SS.ffffff`, converting a
 * text that carries an offset into wall time of `timeZone`; undefined when it is not a real value.
 */
export function parseDatetime(text: string, timeZone: string): string | undefined {
  const parsed = parseDatetimeParts(text);
  if (!parsed) return undefined;
  const { parts, offsetMinutes } = parsed;
  if (offsetMinutes === undefined) return formatStoredDatetime(parts);
  const instant = utcMillis(parts) - offsetMinutes * 60_000;
  // Intl reports years before 0001 with an era we do not read, so stay a day clear of that end.
  if (instant < FIRST_SAFE_INSTANT) return undefined;
  const shifted = { ...partsFromEpoch(instant, timeZone), microsecond: parts.microsecond };
  return isValidDate(shifted) ? formatStoredDatetime(shifted) : undefined;
}

/** Parses a date or a datetime text into `YYYY-MM-DD`, a datetime being truncated to its date in `timeZone`. */
export function normaliseDate(text: string, timeZone: string): string | undefined {
  const date = parseDate(text);
  if (date) return formatDate(date);
  return parseDatetime(text, timeZone)?.slice(0, 10);
}

/** `HH:MM:SS.ffffff`, the stored form of a time. */
export function formatStoredTime(p: TimeParts): string {
  return `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}.${pad(p.microsecond, 6)}`;
}

/** `YYYY-MM-DD HH:MM:SS.ffffff`, the stored form of a timestamp. */
export function formatStoredDatetime(p: DatetimeParts): string {
  return `${formatDate(p)} ${formatStoredTime(p)}`;
}

/** `HH:MM:SS`, plus `.ffffff` when the fraction is not zero: the JSON form of a time. */
export function formatDisplayTime(p: TimeParts): string {
  const base = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return p.microsecond === 0 ? base : `${base}.${pad(p.microsecond, 6)}`;
}

/** The JSON form of a stored (or driver-shaped) timestamp; text that does not parse is returned as is. */
export function displayDatetime(stored: string): string {
  const parsed = parseDatetimeParts(stored);
  if (!parsed) return stored;
  return `${formatDate(parsed.parts)} ${formatDisplayTime(parsed.parts)}`;
}

/** The JSON form of a stored (or driver-shaped) time; text that does not parse is returned as is. */
export function displayTime(stored: string): string {
  const parts = parseTime(stored);
  return parts ? formatDisplayTime(parts) : stored;
}

function requireDate(date: string): DateParts {
  const p = parseDate(date);
  // Callers pass dates they already parsed; anything else is a programming error, not a client one.
  if (!p) throw new RangeError(`Not a valid date: ${date}`);
  return p;
}

/** `date` (`YYYY-MM-DD`) moved by `days` (may be negative). */
export function addDays(date: string, days: number): string {
  const d = new Date(utcMillis({ ...requireDate(date), hour: 0, minute: 0, second: 0, microsecond: 0 }));
  d.setUTCDate(d.getUTCDate() + days);
  return formatDate({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

/** `date` moved by `months`, the day clamped to the target month's length (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(date: string, months: number): string {
  const p = requireDate(date);
  const index = p.year * 12 + (p.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return formatDate({ year, month, day: Math.min(p.day, daysInMonth(year, month)) });
}

/** Day of the week of `date`: 0 for Sunday through 6 for Saturday. */
export function dayOfWeek(date: string): number {
  return new Date(utcMillis({ ...requireDate(date), hour: 0, minute: 0, second: 0, microsecond: 0 })).getUTCDay();
}

/** The first stored timestamp of `date`. */
export function startOfDay(date: string): string {
  return `${date} 00:00:00.000000`;
}

/** The last stored timestamp of `date`. */
export function endOfDay(date: string): string {
  return `${date} 23:59:59.999999`;
}

/**
 * Wall-clock parts of a Date made by a database driver from a zone-less date or timestamp column,
 * which drivers build in the process's local zone (node-postgres does).
 */
export function partsFromDriverDate(d: Date): DatetimeParts {
  return {
    year: d.getFullYear(),
    month: d.getMonth() + 1,
    day: d.getDate(),
    hour: d.getHours(),
    minute: d.getMinutes(),
    second: d.getSeconds(),
    microsecond: d.getMilliseconds() * 1000,
  };
}
