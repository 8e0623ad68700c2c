import { DataError } from '../errors/index.js';

/*
 * Upper bounds on what one list request may ask for. Each is far above anything a real client
 * sends (a desk list view uses a handful of conditions, a few dozen fields, pages of 20 to 500)
 * and far below what either engine refuses with an error of its own, so that an absurd request is
 * a clear 417 DataError on SQLite and PostgreSQL alike, found before any SQL is built or run.
 */

/** Values in one `in` / `not in` list: a page of names picked in a UI is at most a few hundred. */
export const MAX_IN_VALUES = 1000;

/**
 * Values bound by the client's conditions in one statement, across every list. SQLite refuses a
 * statement with more than 32766 variables and PostgreSQL's protocol carries at most 65535; this
 * leaves both far away, with room for the permission layer's own values.
 */
export const MAX_BOUND_VALUES = 5000;

/** Bound parameters of a whole statement, permission conditions included: under SQLite's 32766. */
export const MAX_STATEMENT_PARAMETERS = 30000;

/** Leaf conditions across `filters` and `or_filters`: a hand-built report uses a few dozen. */
export const MAX_CONDITIONS = 200;

/**
 * Nesting of and/or groups in filters. Three levels express any realistic boolean filter; eight
 * keeps every recursive step (parsing, compiling) shallow.
 */
export const MAX_FILTER_DEPTH = 8;

/** Items of `fields` as sent (before `*` is expanded). */
export const MAX_FIELDS = 200;

/**
 * Result columns after `*` is expanded. PostgreSQL allows 1664 target columns and SQLite 2000
 * result columns by default; no DocType comes near this many value fields.
 */
export const MAX_COLUMNS = 1000;

/** Characters of one field reference (`` `tabDocType`.`field` as alias `` is well under it). */
export const MAX_FIELD_CHARS = 300;

/** Terms of `order_by` and of `group_by`. */
export const MAX_ORDER_TERMS = 50;

/**
 * `limit_start` / `limit_page_length` / `start` / `limit`: the 32-bit range. A page or offset past
 * two billion rows is never a real request, and keeping to it makes `limit + 1` exact everywhere.
 */
export const MAX_PAGING = 2 ** 31 - 1;

/**
 * Nesting of any argument value as received. Filters within {@link MAX_FILTER_DEPTH} need about
 * twice that many levels of JSON arrays; anything deeper is refused before any recursive code
 * (the plan-cache key, the parsers) walks it.
 */
export const MAX_ARG_DEPTH = 32;

/** Array items and object entries of all list arguments together. */
export const MAX_ARG_NODES = 50000;

/** Characters of all list arguments together (strings, JSON text included). */
export const MAX_ARG_CHARS = 1024 * 1024;

interface Budget {
  nodes: number;
  chars: number;
}

/**
 * Walks `value` without recursion, refusing it when it nests deeper than {@link MAX_ARG_DEPTH} or,
 * with what `budget` already counted, holds more than {@link MAX_ARG_NODES} items or
 * {@link MAX_ARG_CHARS} characters.
 */
function walk(value: unknown, param: string, budget: Budget): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof v === 'string') {
      budget.chars += v.length;
      if (budget.chars > MAX_ARG_CHARS) throw new DataError(`The list arguments are too long (more than ${MAX_ARG_CHARS} characters)`);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_ARG_DEPTH) throw new DataError(`${param} is nested too deeply (at most ${MAX_ARG_DEPTH} levels)`);
    const children = Array.isArray(v) ? v : Object.entries(v as Record<string, unknown>).flat();
    budget.nodes += children.length;
    if (budget.nodes > MAX_ARG_NODES) throw new DataError(`The list arguments hold too many values (more than ${MAX_ARG_NODES})`);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
}

/**
 * Refuses list arguments too deep or too large to handle safely, as a 417 DataError naming the
 * parameter. Runs first on every list and count request, before anything serialises or parses
 * them: the plan-cache key, JSON decoding and the filter parser all recurse.
 */
export function assertBoundedArgs(raw: Readonly<Record<string, unknown>>): void {
  const budget: Budget = { nodes: 0, chars: 0 };
  for (const param in raw) {
    if (!Object.hasOwn(raw, param)) continue;
    const value = raw[param];
    // A query string's arguments are all strings: counted as walk counts them, without its stack.
    if (typeof value === 'string') {
      budget.chars += value.length;
      if (budget.chars > MAX_ARG_CHARS) throw new DataError(`The list arguments are too long (more than ${MAX_ARG_CHARS} characters)`);
    } else walk(value, param, budget);
  }
}

/** {@link assertBoundedArgs} for one value decoded from JSON text (which may hide any depth). */
export function assertBoundedValue(value: unknown, param: string): void {
  walk(value, param, { nodes: 0, chars: 0 });
}
