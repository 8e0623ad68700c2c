import { DataError } from '../errors/index.js';
import { AGGREGATES, type Aggregate, type ChildSelectItem, type FieldRef, type OrderTerm, type SelectItem } from './list-query.js';

/*
 * The grammar of column references in list parameters (docs/api.md "Lists"). Only these shapes
 * pass; everything else (functions, quotes, comments, semicolons, sub-queries) is a DataError
 * before any metadata is consulted:
 *   field | `field` | via.field | `tabDocType`.field | `tabDocType`.`field`
 */

const PART = '(?:`(\\w+)`|(\\w+))';
// DocType names hold letters, digits, spaces, hyphens and underscores.
const REF_RE = new RegExp(`^(?:\`tab([A-Za-z0-9 _-]+)\`\\.${PART}|${PART}\\.${PART}|${PART})$`);
const ALIAS_RE = /^(.*\S)\s+as\s+(\w+)$/is;
const AGGREGATE_RE = /^(\w+)\s*\(\s*(.*?)\s*\)$/s;
const ORDER_TERM_RE = /^(.+?)(?:\s+(asc|desc))?$/is;

function show(text: unknown): string {
  return typeof text === 'string' ? text : JSON.stringify(text);
}

/** Parses one column reference; `context` names the parameter for the error message. */
export function parseFieldRef(text: unknown, context: string): FieldRef {
  const m = typeof text === 'string' ? REF_RE.exec(text.trim()) : null;
  if (!m) throw new DataError(`Invalid field in ${context}: ${show(text)}`);
  if (m[1] !== undefined) return { doctype: m[1], field: m[2] ?? m[3] };
  if (m[4] !== undefined || m[5] !== undefined) return { via: m[4] ?? m[5], field: m[6] ?? m[7] };
  return { field: m[8] ?? m[9] };
}

function isAggregate(name: string): name is Aggregate {
  return (AGGREGATES as readonly string[]).includes(name);
}

function aggregateItem(fnText: string, argText: string, alias: string | undefined, original: unknown): SelectItem {
  const fn = fnText.toLowerCase();
  if (!isAggregate(fn)) throw new DataError(`Function not allowed in fields: ${show(original)}`);
  if (argText === '*') {
    if (fn !== 'count') throw new DataError(`Only count accepts *: ${show(original)}`);
    return alias === undefined ? { kind: 'aggregate', fn } : { kind: 'aggregate', fn, alias };
  }
  const arg = parseFieldRef(argText, 'fields');
  return alias === undefined ? { kind: 'aggregate', fn, arg } : { kind: 'aggregate', fn, arg, alias };
}

/** The dict form of an aggregate (`{"COUNT": "*", "as": "total"}`), as the reference's v16 accepts. */
function aggregateFromDict(item: Record<string, unknown>): SelectItem {
  const entries = Object.entries(item);
  const aliasEntry = entries.find(([k]) => k.toLowerCase() === 'as');
  const fnEntries = entries.filter(([k]) => k.toLowerCase() !== 'as');
  const alias = aliasEntry?.[1];
  if (fnEntries.length !== 1 || (alias !== undefined && (typeof alias !== 'string' || !/^\w+$/.test(alias)))) {
    throw new DataError(`Invalid field in fields: ${JSON.stringify(item)}`);
  }
  const [fn, arg] = fnEntries[0];
  if (typeof arg !== 'string') throw new DataError(`Invalid field in fields: ${JSON.stringify(item)}`);
  return aggregateItem(fn, arg.trim(), alias, item);
}

/**
 * The nested form `{"items": ["item_code", "qty as quantity"]}` (docs/api.md "Lists"): plain
 * columns of the child DocType, or `*`; joins, aggregates and further nesting are refused.
 */
function childrenFromDict(table: string, list: readonly unknown[]): SelectItem {
  if (!/^\w+$/.test(table)) throw new DataError(`Invalid child table in fields: ${show(table)}`);
  const fields = (list.length === 0 ? ['*'] : list).map((entry): ChildSelectItem => {
    const parsed = typeof entry === 'string' ? parseSelectItem(entry) : undefined;
    if (parsed?.kind === 'all') return parsed;
    if (parsed?.kind === 'field' && parsed.ref.via === undefined && parsed.ref.doctype === undefined) return parsed;
    throw new DataError(`Invalid field for child table ${table} in fields: ${show(entry)}`);
  });
  return { kind: 'children', table, fields };
}

/**
 * Parses one item of `fields`: `*`, a reference with an optional `as alias`, an aggregate (string
 * or dict form), or the nested child-rows form `{"table": [fields]}`.
 */
export function parseSelectItem(item: unknown): SelectItem {
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const entries = Object.entries(item as Record<string, unknown>);
    if (entries.length === 1 && Array.isArray(entries[0][1])) return childrenFromDict(entries[0][0], entries[0][1]);
    return aggregateFromDict(item as Record<string, unknown>);
  }
  if (typeof item !== 'string') throw new DataError(`Invalid field in fields: ${show(item)}`);
  let text = item.trim();
  if (text === '*') return { kind: 'all' };
  let alias: string | undefined;
  const aliased = ALIAS_RE.exec(text);
  if (aliased) {
    text = aliased[1];
    alias = aliased[2];
  }
  const agg = AGGREGATE_RE.exec(text);
  if (agg) return aggregateItem(agg[1], agg[2], alias, item);
  const ref = parseFieldRef(text, 'fields');
  return alias === undefined ? { kind: 'field', ref } : { kind: 'field', ref, alias };
}

/** Parses `order_by`: comma-separated `field [asc|desc]`; empty means the default order. */
export function parseOrderBy(text: string): OrderTerm[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'KEEP_DEFAULT_ORDERING') return undefined;
  return trimmed.split(',').map((term) => {
    const m = ORDER_TERM_RE.exec(term.trim());
    if (!m) throw new DataError(`Invalid order_by: ${text}`);
    const field = parseFieldRef(m[1], 'order_by');
    const direction = m[2]?.toLowerCase() as 'asc' | 'desc' | undefined;
    return direction === undefined ? { field } : { field, direction };
  });
}

/** Parses `group_by`: comma-separated references; empty means no grouping. */
export function parseGroupBy(text: string): FieldRef[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  return trimmed.split(',').map((term) => parseFieldRef(term, 'group_by'));
}
