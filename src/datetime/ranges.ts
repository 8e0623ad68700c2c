/**
 * Named date ranges for the list filters `timespan`, `previous` and `next` (docs/api.md "Lists"), computed
 * on calendar dates in the site's time zone exactly as the reference's `get_timespan_date_range`.
 */
import { DataError } from '../errors/index.js';
import { today as todayIn } from './clock.js';
import { addDays, addMonths, dayOfWeek, daysInMonth, parseDate } from './parse.js';

/** Every keyword `timespan` accepts. */
export const TIMESPANS = [
  'yesterday',
  'today',
  'tomorrow',
  'this week',
  'this month',
  'this quarter',
  'this year',
  'last week',
  'last month',
  'last quarter',
  'last 6 months',
  'last year',
  'last 7 days',
  'last 14 days',
  'last 30 days',
  'last 90 days',
  'next week',
  'next month',
  'next quarter',
  'next 6 months',
  'next year',
  'next 7 days',
  'next 14 days',
  'next 30 days',
] as const;

/** A `timespan` keyword. */
export type Timespan = (typeof TIMESPANS)[number];

/** An inclusive range of calendar dates, both `YYYY-MM-DD`. */
export type DateRange = [from: string, to: string];

/** The reference's default first day of the week: Sunday (0). */
export const DEFAULT_FIRST_DAY_OF_WEEK = 0;

/** The periods `previous` and `next` accept, and the timespan unit each one means. */
const PERIODS: ReadonlyMap<string, string> = new Map([
  ['1 week', 'week'],
  ['1 month', 'month'],
  ['3 months', 'quarter'],
  ['6 months', '6 months'],
  ['1 year', 'year'],
]);

function parts(date: string): { year: number; month: number } {
  const p = parseDate(date);
  if (!p) throw new RangeError(`Not a valid date: ${date}`);
  return p;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function monthStart(date: string): string {
  const { year, month } = parts(date);
  return `${pad(year, 4)}-${pad(month)}-01`;
}

function monthEnd(date: string): string {
  const { year, month } = parts(date);
  return `${pad(year, 4)}-${pad(month)}-${pad(daysInMonth(year, month))}`;
}

function quarterStart(date: string): string {
  const { year, month } = parts(date);
  return `${pad(year, 4)}-${pad(Math.floor((month - 1) / 3) * 3 + 1)}-01`;
}

function quarterEnd(date: string): string {
  const { year, month } = parts(date);
  return monthEnd(`${pad(year, 4)}-${pad(Math.floor((month - 1) / 3) * 3 + 3)}-01`);
}

function yearStart(date: string): string {
  return `${pad(parts(date).year, 4)}-01-01`;
}

function yearEnd(date: string): string {
  return `${pad(parts(date).year, 4)}-12-31`;
}

function weekRange(date: string, firstDay: number): DateRange {
  const start = addDays(date, -((dayOfWeek(date) - firstDay + 7) % 7));
  return [start, addDays(start, 6)];
}

function rangeFor(keyword: Timespan, today: string, firstDay: number): DateRange {
  switch (keyword) {
    case 'yesterday':
      return [addDays(today, -1), addDays(today, -1)];
    case 'today':
      return [today, today];
    case 'tomorrow':
      return [addDays(today, 1), addDays(today, 1)];
    case 'this week':
      return weekRange(today, firstDay);
    case 'this month':
      return [monthStart(today), monthEnd(today)];
    case 'this quarter':
      return [quarterStart(today), quarterEnd(today)];
    case 'this year':
      return [yearStart(today), yearEnd(today)];
    case 'last week':
      return weekRange(addDays(today, -7), firstDay);
    case 'last month':
      return [monthStart(addMonths(today, -1)), monthEnd(addMonths(today, -1))];
    case 'last quarter':
      return [quarterStart(addMonths(today, -3)), quarterEnd(addMonths(today, -3))];
    // The two previous quarters, as the reference computes it (not six months back from today).
    case 'last 6 months':
      return [quarterStart(addMonths(today, -6)), quarterEnd(addMonths(today, -3))];
    case 'last year':
      return [yearStart(addMonths(today, -12)), yearEnd(addMonths(today, -12))];
    case 'last 7 days':
      return [addDays(today, -7), today];
    case 'last 14 days':
      return [addDays(today, -14), today];
    case 'last 30 days':
      return [addDays(today, -30), today];
    case 'last 90 days':
      return [addDays(today, -90), today];
    case 'next week':
      return weekRange(addDays(today, 7), firstDay);
    case 'next month':
      return [monthStart(addMonths(today, 1)), monthEnd(addMonths(today, 1))];
    case 'next quarter':
      return [quarterStart(addMonths(today, 3)), quarterEnd(addMonths(today, 3))];
    case 'next 6 months':
      return [quarterStart(addMonths(today, 3)), quarterEnd(addMonths(today, 6))];
    case 'next year':
      return [yearStart(addMonths(today, 12)), yearEnd(addMonths(today, 12))];
    case 'next 7 days':
      return [today, addDays(today, 7)];
    case 'next 14 days':
      return [today, addDays(today, 14)];
    case 'next 30 days':
      return [today, addDays(today, 30)];
  }
}

/** True when `keyword` (already lower case and trimmed) is a `timespan` keyword. */
export function isTimespan(keyword: string): keyword is Timespan {
  return (TIMESPANS as readonly string[]).includes(keyword);
}

function normalise(text: unknown): string {
  return typeof text === 'string' ? text.trim().toLowerCase().replace(/\s+/g, ' ') : '';
}

/**
 * The inclusive date range a `timespan` keyword means, with `today` defaulting to today in
 * `timeZone`. An unknown keyword is a 417 DataError.
 */
export function timespanRange(
  keyword: unknown,
  timeZone: string,
  today: string = todayIn(timeZone),
  firstDayOfWeek: number = DEFAULT_FIRST_DAY_OF_WEEK,
): DateRange {
  const k = normalise(keyword);
  if (!isTimespan(k)) {
    throw new DataError(`Invalid timespan: ${JSON.stringify(keyword)}. Use one of: ${TIMESPANS.join(', ')}`);
  }
  return rangeFor(k, today, firstDayOfWeek);
}

/**
 * The range of `previous`/`next` with a period (`1 week`, `1 month`, `3 months`, `6 months`,
 * `1 year`): the same as the timespan `last …`/`next …`. An unknown period is a 417 DataError.
 */
export function previousNextRange(
  op: 'previous' | 'next',
  period: unknown,
  timeZone: string,
  today: string = todayIn(timeZone),
  firstDayOfWeek: number = DEFAULT_FIRST_DAY_OF_WEEK,
): DateRange {
  const unit = PERIODS.get(normalise(period));
  if (unit === undefined) {
    throw new DataError(`Invalid period for ${op}: ${JSON.stringify(period)}. Use one of: ${[...PERIODS.keys()].join(', ')}`);
  }
  return timespanRange(`${op === 'previous' ? 'last' : 'next'} ${unit}`, timeZone, today, firstDayOfWeek);
}
