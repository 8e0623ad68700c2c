import { ValidationError } from '../../errors/index.js';
import { wallClock } from '../../datetime/clock.js';
import type { Doc } from '../../meta/doctype.js';

/** What a naming expression is resolved against. */
export interface ExpressionInput {
  readonly doc: Doc;
  /** True when `fieldname` is a field of the document's DocType (set or not). */
  readonly hasField: (fieldname: string) => boolean;
  /** The site's time zone, for the date parts. */
  readonly timeZone: string;
  /** The instant the name is made, in epoch milliseconds. */
  readonly at: number;
  /** Takes the next number of the counter keyed by the resolved text before it. */
  readonly counter: (prefix: string) => Promise<number>;
}

/** Characters allowed in a series pattern (reference NAMING_SERIES_PATTERN, Python `\w` is Unicode). */
const SERIES_PATTERN = /^[\p{L}\p{M}\p{N}_\- /.#{}]+$/u;
/** A braced parameter of a `format:` expression. */
const BRACED_PARAM = /\{([\p{L}\p{M}\p{N}_ |#]+)\}/gu;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Day of the year, 1-based (`JJJ`). */
function dayOfYear(year: number, month: number, day: number): number {
  return (Date.UTC(year, month - 1, day) - Date.UTC(year, 0, 1)) / 86_400_000 + 1;
}

/**
 * `WW`: the ISO 8601 week, made consecutive within the calendar year as the reference does: early
 * January days of week 52/53 count as week 00, late December days of week 1 as week 53.
 */
function consecutiveWeek(year: number, month: number, day: number): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  const isoDay = date.getUTCDay() || 7;
  date.setUTCDate(date.getUTCDate() + 4 - isoDay); // the Thursday of this ISO week
  const week = Math.ceil(((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000 + 1) / 7);
  if (month === 1 && week >= 52) return '00';
  if (month === 12 && week <= 1) return '53';
  return pad(week);
}

/** A date or time part of an expression, or undefined when `part` is not one. */
function datePart(part: string, at: number, timeZone: string): string | undefined {
  const w = wallClock(at, timeZone);
  switch (part) {
    case 'YY':
      return pad(w.year % 100);
    case 'YYYY':
      return pad(w.year, 4);
    case 'MM':
      return pad(w.month);
    case 'DD':
      return pad(w.day);
    case 'JJJ':
      return pad(dayOfYear(w.year, w.month, w.day), 3);
    case 'WW':
      return consecutiveWeek(w.year, w.month, w.day);
    case 'timestamp': {
      const time = `${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}.${pad((at % 1000) * 1000, 6)}`;
      return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${time}`;
    }
    default:
      return undefined;
  }
}

/** A field value as name text; values that cannot be text (objects, booleans) contribute nothing. */
function fieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return '';
}

/**
 * One non-counter part: a date part, `{field}`, a bare name of a field of the document, or literal
 * text. A bare word is a field only when the document has it, so `TASK-` stays literal.
 */
function resolvePart(part: string, input: ExpressionInput): string {
  const date = datePart(part, input.at, input.timeZone);
  if (date !== undefined) return date;
  if (part.startsWith('{')) return fieldText(input.doc[part.replaceAll('{', '').replaceAll('}', '')]);
  if (Object.hasOwn(input.doc, part) || input.hasField(part)) return fieldText(input.doc[part]);
  return part;
}

/** The counter's text: zero-padded to the number of `#` signs, longer when the number outgrows them. */
async function counterText(part: string, prefix: string, input: ExpressionInput): Promise<string> {
  const digits = part.replaceAll(/[^#]/g, '').length;
  return String(await input.counter(prefix)).padStart(digits, '0');
}

/**
 * Expands a series pattern such as `BK-.YYYY.-.####`: `.`-separated parts, of which the first
 * `#…` part is the counter, keyed by everything resolved before it. Later `#` parts add nothing.
 */
export async function expandSeries(pattern: string, input: ExpressionInput): Promise<string> {
  if (!pattern.includes('.')) {
    throw new ValidationError(`Invalid naming series ${pattern}: dot (.) missing`);
  }
  if (!SERIES_PATTERN.test(pattern)) {
    throw new ValidationError(`Special Characters except '-', '#', '.', '/', '{' and '}' not allowed in naming series ${pattern}`);
  }
  let name = '';
  let counted = false;
  for (const part of pattern.split('.')) {
    if (part === '') continue;
    if (part.startsWith('#')) {
      if (!counted) name += await counterText(part, name, input);
      counted = true;
      continue;
    }
    name += resolvePart(part, input);
  }
  return name;
}

/**
 * Expands a `format:` template such as `ABC-{field}-{YYYY}-{####}`: each braced parameter is a
 * date part, a field or a counter; the text between them is kept as it is. The counter is keyed by
 * the name resolved so far, and only the first one counts.
 */
export async function expandFormat(template: string, input: ExpressionInput): Promise<string> {
  let name = '';
  let last = 0;
  let counted = false;
  for (const match of template.matchAll(BRACED_PARAM)) {
    name += template.slice(last, match.index);
    last = match.index + match[0].length;
    const param = match[1].trim();
    if (param.startsWith('#')) {
      if (!counted) name += await counterText(param, name, input);
      counted = true;
      continue;
    }
    name += resolvePart(param, input);
  }
  return name + template.slice(last);
}
