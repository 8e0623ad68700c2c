import { DataError } from '../errors/index.js';
import type { ListQuery, SelectItem } from './list-query.js';
import { parseFilters } from './parse-filters.js';
import { parseGroupBy, parseOrderBy, parseSelectItem } from './parse-field-ref.js';

/** How to read the parameters. */
export interface ListParamsOptions {
  /** Which API surface they came from: paging names differ (reference §3, §4.1). */
  readonly version: 'v1' | 'v2';
  /** The DocType from the route; without it, the `doctype` argument names it (`fw.client.get_list`). */
  readonly doctype?: string;
}

const DEFAULT_PAGE_LENGTH = 20;

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * A JSON-typed parameter arrives as a JSON string or as the native value (API.md "Requests").
 * Text that is not JSON stays text (a bare name, `*`, a comma-separated field list).
 */
function decodeJson(value: unknown, param: string): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (/^[[{"]/.test(text)) throw new DataError(`${param} is not valid JSON: ${value}`);
    return text;
  }
}

function parseFields(raw: unknown): SelectItem[] {
  const value = decodeJson(raw, 'fields');
  if (value === undefined || value === null) return [{ kind: 'field', ref: { field: 'name' } }];
  // The reference also takes a comma-separated string (`"name, status"`) besides `*`.
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) throw new DataError(`fields must be a list; got ${show(value)}`);
  if (list.length === 0) return [{ kind: 'field', ref: { field: 'name' } }];
  return list.map(parseSelectItem);
}

function parseText(raw: unknown, param: string): string {
  if (isAbsent(raw)) return '';
  if (typeof raw !== 'string') throw new DataError(`${param} must be a string; got ${show(raw)}`);
  return raw;
}

/** A paging value: absent gives the default; otherwise a non-negative integer, as a number or digits. */
function parseCount(raw: unknown, param: string, fallback: number): number {
  if (isAbsent(raw)) return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new DataError(`${param} must be a non-negative integer; got ${show(raw)}`);
  }
  return n;
}

/** The reference's `sbool`, strict: anything but these spellings of a boolean is refused. */
function parseBool(raw: unknown, param: string, fallback: boolean): boolean {
  if (isAbsent(raw)) return fallback;
  if (raw === true || raw === 1) return true;
  if (raw === false || raw === 0) return false;
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (text === '1' || text === 'true') return true;
    if (text === '0' || text === 'false') return false;
  }
  throw new DataError(`${param} must be a boolean; got ${show(raw)}`);
}

function paging(raw: Readonly<Record<string, unknown>>, version: 'v1' | 'v2'): { start: number; pageLength: number } {
  if (version === 'v2') {
    return { start: parseCount(raw.start, 'start', 0), pageLength: parseCount(raw.limit, 'limit', DEFAULT_PAGE_LENGTH) };
  }
  const start = parseCount(raw.limit_start, 'limit_start', 0);
  const pageLength = isAbsent(raw.limit_page_length)
    ? parseCount(raw.limit, 'limit', DEFAULT_PAGE_LENGTH)
    : parseCount(raw.limit_page_length, 'limit_page_length', DEFAULT_PAGE_LENGTH);
  return { start, pageLength };
}

/**
 * Builds the typed query of a list request from its raw arguments (query string or
 * body, reference §3 and §4.1). Checks shapes only; names are checked against metadata when the
 * query is compiled. Any malformed parameter is a 417 DataError naming it.
 */
export function parseListParams(raw: Readonly<Record<string, unknown>>, opts: ListParamsOptions): ListQuery {
  const doctype = opts.doctype ?? raw.doctype;
  if (typeof doctype !== 'string' || doctype.trim() === '') throw new DataError('doctype is required');
  return {
    doctype,
    fields: parseFields(raw.fields),
    filters: parseFilters(decodeJson(raw.filters, 'filters'), 'filters'),
    orFilters: parseFilters(decodeJson(raw.or_filters, 'or_filters'), 'or_filters'),
    orderBy: parseOrderBy(parseText(raw.order_by, 'order_by')),
    groupBy: parseGroupBy(parseText(raw.group_by, 'group_by')),
    ...paging(raw, opts.version),
    asDict: parseBool(raw.as_dict, 'as_dict', true),
  };
}
