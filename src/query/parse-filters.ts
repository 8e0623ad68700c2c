import { DataError } from '../errors/index.js';
import { OPERATORS, type Condition, type FieldRef, type Operator } from './list-query.js';
import { MAX_FILTER_DEPTH } from './list-limits.js';
import { parseFieldRef } from './parse-field-ref.js';

/*
 * Every filter shape of docs/api.md "Lists", already decoded from JSON, into Conditions:
 *   {"status": "Open", "date": [">", "2025-01-01"]}        dict: value, or [operator, value]
 *   [["status", "=", "Open"], ["ToDo", "name", "!=", "x"]]  list of 3- or 4-item conditions
 *   ["status", "=", "Open"]                                 a single condition
 *   ["a", "b"]                                              names: name in (a, b)
 *   "a"                                                     name = a
 *   [cond, "or", [cond, "and", cond]]                       nested logic (reference develop)
 */

const ALIASES: ReadonlyMap<string, Operator> = new Map([
  ['=<', '<='],
  ['=>', '>='],
]);

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function normaliseOperator(op: string): string {
  return op.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** The canonical operator for `op`; anything not in the list (`<>` included) is a DataError. */
export function parseOperator(op: unknown): Operator {
  if (typeof op === 'string') {
    const text = normaliseOperator(op);
    const canonical = ALIASES.get(text) ?? text;
    if ((OPERATORS as readonly string[]).includes(canonical)) return canonical as Operator;
  }
  throw new DataError(`Operator must be one of ${OPERATORS.join(', ')}; got ${show(op)}`);
}

/** True for text that is meant as an operator, valid or not, so `["a", "<>", "b"]` is not read as names. */
function looksLikeOperator(op: unknown): boolean {
  if (typeof op !== 'string') return false;
  const text = normaliseOperator(op);
  return ALIASES.has(text) || (OPERATORS as readonly string[]).includes(text) || /^[<>=!~]+$/.test(text) || text.startsWith('not ');
}

function isScalar(v: unknown): v is string | number {
  return typeof v === 'string' || typeof v === 'number';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function nameCondition(op: Operator, value: unknown): Condition {
  return { field: { field: 'name' }, op, value };
}

/** `[field, op, value]` or `[doctype, field, op, value(, ignored)]`. */
function parseConditionArray(item: readonly unknown[], param: string): Condition {
  if (item.length === 3) {
    return { field: parseFieldRef(item[0], param), op: parseOperator(item[1]), value: item[2] };
  }
  if (item.length === 4 || item.length === 5) {
    const [doctype, fieldText, op, value] = item;
    if (typeof doctype !== 'string' || doctype.trim() === '') throw new DataError(`Invalid filter: ${show(item)}`);
    const ref = parseFieldRef(fieldText, param);
    if (ref.via !== undefined || ref.doctype !== undefined) throw new DataError(`Invalid filter: ${show(item)}`);
    const field: FieldRef = { doctype: doctype.trim(), field: ref.field };
    return { field, op: parseOperator(op), value };
  }
  throw new DataError(`Invalid filter: ${show(item)}; use [field, operator, value]`);
}

function parseDict(dict: Record<string, unknown>, param: string): Condition[] {
  return Object.entries(dict).map(([key, value]) => {
    const field = parseFieldRef(key, param);
    if (Array.isArray(value)) {
      if (value.length !== 2) throw new DataError(`Invalid filter for ${key}: ${show(value)}; use [operator, value]`);
      return { field, op: parseOperator(value[0]), value: value[1] };
    }
    if (isPlainObject(value)) throw new DataError(`Invalid filter for ${key}: ${show(value)}`);
    return { field, op: '=' as const, value };
  });
}

function and(conditions: Condition[]): Condition {
  return conditions.length === 1 ? conditions[0] : { and: conditions };
}

/** `[operand, "and"|"or", operand, ...]`: connectors at odd positions, operands at even ones. */
function isNestedLogic(list: readonly unknown[]): boolean {
  if (list.length < 3 || list.length % 2 === 0) return false;
  return list.every((item, i) => (i % 2 === 1 ? typeof item === 'string' && /^(and|or)$/i.test(item.trim()) : Array.isArray(item) || isPlainObject(item)));
}

function parseOperand(item: unknown, param: string, depth: number): Condition {
  if (isPlainObject(item)) return and(parseDict(item, param));
  const list = item as readonly unknown[];
  if (typeof list[0] === 'string' && !isNestedLogic(list)) return parseConditionArray(list, param);
  return and(parseList(list, param, depth + 1));
}

function parseNested(list: readonly unknown[], param: string, depth: number): Condition {
  const connectors = new Set(list.filter((_, i) => i % 2 === 1).map((c) => (c as string).trim().toLowerCase()));
  if (connectors.size > 1) {
    throw new DataError(`Mixing "and" and "or" at one level of ${param} is ambiguous; nest the groups`);
  }
  const operands = list.filter((_, i) => i % 2 === 0).map((item) => parseOperand(item, param, depth));
  return connectors.has('or') ? { or: operands } : { and: operands };
}

function parseList(list: readonly unknown[], param: string, depth: number): Condition[] {
  if (depth > MAX_FILTER_DEPTH) throw new DataError(`${param} are nested too deeply (at most ${MAX_FILTER_DEPTH} levels of groups)`);
  if (list.length === 0) return [];
  if (isNestedLogic(list)) return [parseNested(list, param, depth)];
  if (typeof list[0] === 'string' || list.every(isScalar)) {
    if (!list.every(isScalar)) return [parseConditionArray(list, param)];
    const opAt = list.length === 3 ? 1 : list.length === 4 || list.length === 5 ? 2 : -1;
    if (opAt > 0 && looksLikeOperator(list[opAt])) return [parseConditionArray(list, param)];
    return [nameCondition('in', list)];
  }
  return list.flatMap((item): Condition[] => {
    if (isPlainObject(item)) return parseDict(item, param);
    if (!Array.isArray(item)) throw new DataError(`Invalid filter in ${param}: ${show(item)}`);
    if (typeof item[0] === 'string' && !isNestedLogic(item)) return [parseConditionArray(item, param)];
    return [and(parseList(item, param, depth + 1))];
  });
}

/**
 * The conditions of a decoded `filters` or `or_filters` value (`param` names it in messages).
 * undefined and null mean no filters; any other shape is a 417 DataError.
 */
export function parseFilters(value: unknown, param: string): Condition[] {
  if (value === undefined || value === null || value === '') return [];
  if (isScalar(value)) return [nameCondition('=', value)];
  if (Array.isArray(value)) return parseList(value, param, 0);
  if (isPlainObject(value)) return parseDict(value, param);
  throw new DataError(`${param} must be a list or a dict; got ${show(value)}`);
}
