import { DataError } from '../errors/index.js';
import { conditionParts, isLeaf, type Condition, type ListQuery, type SelectItem } from './list-query.js';
import { assertBoundedArgs, assertBoundedValue, MAX_CONDITIONS, MAX_FIELD_CHARS, MAX_FIELDS, MAX_ORDER_TERMS, MAX_PAGING } from './list-limits.js';
import { parseFilters } from './parse-filters.js';
import { parseGroupBy, parseOrderBy, parseSelectItem } from './parse-field-ref.js';

/**
 * The names of the paging parameters: `start`, and the first of `pageLength` a request sends (the
 * others are ignored). The API surfaces name them differently (docs/api.md "Requests and answers").
 */
export interface PagingNames {
  readonly start: string;
  readonly pageLength: readonly string[];
}

/** The reference's names, which methods and apps use too: `limit_start`, `limit_page_length` (or `limit`). */
export const REFERENCE_PAGING: PagingNames = { start: 'limit_start', pageLength: ['limit_page_length', 'limit'] };

/** How to read the parameters. */
export interface ListParamsOptions {
  /** Which parameters page the list; {@link REFERENCE_PAGING} when left out. */
  readonly paging?: PagingNames;
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
 * A JSON-typed parameter arrives as a JSON string or as the native value (docs/api.md "Requests and answers").
 * Text that is not JSON stays text (a bare name, `*`, a comma-separated field list).
 */
function decodeJson(value: unknown, param: string): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    if (/^[[{"]/.test(text)) throw new DataError(`${param} is not valid JSON: ${value.length > 200 ? `${value.slice(0, 200)}...` : value}`);
    return text;
  }
  assertBoundedValue(decoded, param);
  return decoded;
}

function parseFields(raw: unknown): SelectItem[] {
  const value = decodeJson(raw, 'fields');
  if (value === undefined || value === null) return [{ kind: 'field', ref: { field: 'name' } }];
  // The reference also takes a comma-separated string (`"name, status"`) besides `*`.
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) throw new DataError(`fields must be a list; got ${show(value)}`);
  if (list.length === 0) return [{ kind: 'field', ref: { field: 'name' } }];
  if (list.length > MAX_FIELDS) throw new DataError(`fields may name at most ${MAX_FIELDS} items; got ${list.length}`);
  for (const item of list) {
    if (typeof item === 'string' && item.length > MAX_FIELD_CHARS) {
      throw new DataError(`A field in fields is longer than ${MAX_FIELD_CHARS} characters: ${item.slice(0, 60)}...`);
    }
  }
  return list.map(parseSelectItem);
}

/** `order_by` / `group_by`: a string of at most {@link MAX_ORDER_TERMS} comma-separated short terms. */
function parseTerms(raw: unknown, param: string): string {
  if (isAbsent(raw)) return '';
  if (typeof raw !== 'string') throw new DataError(`${param} must be a string; got ${show(raw).slice(0, 200)}`);
  const terms = raw.split(',');
  if (terms.length > MAX_ORDER_TERMS) throw new DataError(`${param} may name at most ${MAX_ORDER_TERMS} fields; got ${terms.length}`);
  if (terms.some((t) => t.length > MAX_FIELD_CHARS)) throw new DataError(`A term of ${param} is longer than ${MAX_FIELD_CHARS} characters`);
  return raw;
}

/**
 * A paging value: absent gives the default; otherwise a non-negative integer up to
 * {@link MAX_PAGING}, as a number or digits.
 */
function parseCount(raw: unknown, param: string, fallback: number): number {
  if (isAbsent(raw)) return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 0) {
    throw new DataError(`${param} must be a non-negative integer; got ${show(raw).slice(0, 100)}`);
  }
  if (n > MAX_PAGING) throw new DataError(`${param} must be at most ${MAX_PAGING}; got ${show(raw).slice(0, 100)} (0 means no limit)`);
  return n;
}

function countLeaves(conditions: readonly Condition[]): number {
  let n = 0;
  for (const c of conditions) n += isLeaf(c) ? 1 : countLeaves(conditionParts(c));
  return n;
}

/**
 * The decoded `filters` / `or_filters` value: a list or a dict, JSON text or native. Anything else
 * (text that is not JSON, a number, a bare name) is a 417 like every other malformed parameter,
 * never silently read as something else (docs/api.md "Lists").
 */
function filterValue(raw: unknown, param: string): unknown {
  const value = decodeJson(raw, param);
  if (value !== undefined && value !== null && typeof value !== 'object') {
    throw new DataError(`${param} must be a list or a dict (JSON); got ${show(value).slice(0, 100)}`);
  }
  return value;
}

function parseConditions(raw: Readonly<Record<string, unknown>>): Pick<ListQuery, 'filters' | 'orFilters'> {
  const filters = parseFilters(filterValue(raw.filters, 'filters'), 'filters');
  const orFilters = parseFilters(filterValue(raw.or_filters, 'or_filters'), 'or_filters');
  const count = countLeaves(filters) + countLeaves(orFilters);
  if (count > MAX_CONDITIONS) {
    throw new DataError(`filters and or_filters may hold at most ${MAX_CONDITIONS} conditions together; got ${count}`);
  }
  return { filters, orFilters };
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

function paging(raw: Readonly<Record<string, unknown>>, names: PagingNames): { start: number; pageLength: number } {
  const start = parseCount(raw[names.start], names.start, 0);
  const given = names.pageLength.find((name) => !isAbsent(raw[name])) ?? names.pageLength[names.pageLength.length - 1];
  return { start, pageLength: parseCount(raw[given], given, DEFAULT_PAGE_LENGTH) };
}

/**
 * Builds the typed query of a list request from its raw arguments (query string or
 * body, docs/api.md "Requests and answers" and "API v2"). Checks shapes only; names are checked against metadata when the
 * query is compiled. Any malformed parameter is a 417 DataError naming it.
 */
export function parseListParams(raw: Readonly<Record<string, unknown>>, opts: ListParamsOptions): ListQuery {
  const doctype = opts.doctype ?? raw.doctype;
  if (typeof doctype !== 'string' || doctype.trim() === '') throw new DataError('doctype is required');
  return {
    doctype,
    fields: parseFields(raw.fields),
    ...parseConditions(raw),
    orderBy: parseOrderBy(parseTerms(raw.order_by, 'order_by')),
    groupBy: parseGroupBy(parseTerms(raw.group_by, 'group_by')),
    ...paging(raw, opts.paging ?? REFERENCE_PAGING),
    asDict: parseBool(raw.as_dict, 'as_dict', true),
    ...(typeof raw.parent === 'string' && raw.parent !== '' ? { parent: raw.parent } : {}),
  };
}

/** Keys longer than this are parsed every time rather than kept. */
const MAX_KEY_LENGTH = 4096;
const MAX_KEPT = 512;
const kept = new Map<string, ListQuery>();

/**
 * {@link parseListParams}, with the queries of recent arguments kept: a client paging through a
 * list sends the same parameters again and again, and the same query object lets the list layer
 * find its compiled plan without comparing queries. Parse errors are never kept.
 */
export function listQueryOf(raw: Readonly<Record<string, unknown>>, opts: ListParamsOptions = {}): ListQuery {
  assertBoundedArgs(raw);
  const key = JSON.stringify([opts.doctype ?? null, opts.paging?.start ?? null, raw]);
  if (key.length > MAX_KEY_LENGTH) return parseListParams(raw, opts);
  const found = kept.get(key);
  if (found !== undefined) return found;
  const query = parseListParams(raw, opts);
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(key, query);
  return query;
}
