import { sql, type RawBuilder } from 'kysely';
import { DataError } from '../errors/index.js';
import { today as todayIn } from '../datetime/clock.js';
import { previousNextRange, timespanRange } from '../datetime/ranges.js';
import type { Dialect } from '../storage/dialect.js';
import { hasNul } from '../meta/field-types/coerce-helpers.js';
import { dateBounds, isBlank, toList, toStored } from './filter-values.js';
import { MAX_BOUND_VALUES, MAX_IN_VALUES } from './list-limits.js';
import { isLeaf, type Condition, type Operator, type SharedRows } from './list-query.js';
import type { QueryScope } from './query-scope.js';
import type { ResolvedColumn } from './resolved-column.js';

/** What compiling a condition needs. */
export interface ConditionEnv {
  readonly scope: QueryScope;
  readonly dialect: Dialect;
  readonly timeZone: string;
  /** `YYYY-MM-DD` in the site's zone: the anchor of `timespan`, `previous`, `next` and open `between` bounds. */
  readonly today: string;
  /** False for the permission layer's own restriction, which is not subject to field read checks. */
  readonly checkRead: boolean;
  /**
   * Values bound so far by the client's conditions, shared by every condition of one statement and
   * refused past {@link MAX_BOUND_VALUES}; absent for the permission layer's restriction.
   */
  readonly bound?: { count: number };
}

/** What a condition env is built from: the dialect, the site's zone and, when known, today. */
export interface ConditionEnvSource {
  readonly dialect: Dialect;
  readonly timeZone: string;
  readonly today?: string;
}

/** A condition env; client conditions (`checkRead`) share a budget of bound values, the permission layer's do not. */
export function conditionEnv(scope: QueryScope, source: ConditionEnvSource, checkRead: boolean): ConditionEnv {
  // Today is read from the clock only by the few date filters that need it.
  let today = source.today;
  return {
    scope,
    dialect: source.dialect,
    timeZone: source.timeZone,
    get today(): string {
      return (today ??= todayIn(source.timeZone));
    },
    checkRead,
    ...(checkRead ? { bound: { count: 0 } } : {}),
  };
}

/** Counts `n` more client values against the statement's budget. */
function spend(env: ConditionEnv, n: number): void {
  if (!env.bound) return;
  env.bound.count += n;
  if (env.bound.count > MAX_BOUND_VALUES) {
    throw new DataError(`The filters hold too many values (more than ${MAX_BOUND_VALUES} in one request)`);
  }
}

type Sql = RawBuilder<boolean>;

/** The table of the DocShare DocType. */
const SHARE_TABLE = 'tabDocShare';

const TRUE: Sql = sql<boolean>`1 = 1`;
const FALSE: Sql = sql<boolean>`1 = 0`;

// Operators reach the SQL only through this table, never as request text.
const COMPARISONS: Readonly<Partial<Record<Operator, RawBuilder<unknown>>>> = {
  '<': sql.raw('<'),
  '>': sql.raw('>'),
  '<=': sql.raw('<='),
  '>=': sql.raw('>='),
};

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function isDateLike(column: ResolvedColumn): boolean {
  return column.kind === 'date' || column.kind === 'datetime';
}

/** `coalesce(col, empty)`, so NULL counts as the type's empty value; plain for never-null columns. */
function orEmpty(column: ResolvedColumn): RawBuilder<unknown> {
  return column.nullable ? sql`coalesce(${column.expr}, ${column.emptyValue})` : column.expr;
}

function equals(column: ResolvedColumn, value: unknown, env: ConditionEnv): Sql {
  const v = toStored(column, value, env.timeZone);
  if (v === column.emptyValue && column.nullable) return sql<boolean>`(${column.expr} is null or ${column.expr} = ${v})`;
  return sql<boolean>`${column.expr} = ${v}`;
}

function like(column: ResolvedColumn, negate: boolean, value: unknown, env: ConditionEnv): Sql {
  if (!isBlank(value) && typeof value !== 'string' && typeof value !== 'number') {
    throw new DataError(`Invalid pattern for ${column.name}: ${show(value)}`);
  }
  const pattern = isBlank(value) ? '' : String(value);
  if (hasNul(pattern)) throw new DataError(`Invalid pattern for ${column.name}: NUL characters are not allowed`);
  const text = column.kind === 'text' ? column.expr : sql`cast(${column.expr} as text)`;
  const subject = column.nullable && (negate || pattern === '') ? sql`coalesce(${text}, '')` : text;
  const op = sql.raw(`${negate ? 'not ' : ''}${env.dialect.likeOperator}`);
  // Backslash escapes % and _ on both engines, as it does on MariaDB.
  return sql<boolean>`${subject} ${op} ${pattern} escape ${sql.raw("'\\'")}`;
}

function inList(column: ResolvedColumn, negate: boolean, value: unknown, env: ConditionEnv): Sql {
  const items = toList(column, value);
  if (items.length > MAX_IN_VALUES) {
    throw new DataError(`"${negate ? 'not in' : 'in'}" takes at most ${MAX_IN_VALUES} values; got ${items.length} for ${column.name}`);
  }
  spend(env, items.length);
  if (items.length === 0) return negate ? TRUE : FALSE;
  const stored = items.map((item) => toStored(column, item, env.timeZone));
  const list = sql.join(stored);
  if (negate) return sql<boolean>`${orEmpty(column)} not in (${list})`;
  if (column.nullable && items.some(isBlank)) return sql<boolean>`(${column.expr} in (${list}) or ${column.expr} is null)`;
  return sql<boolean>`${column.expr} in (${list})`;
}

function isSet(column: ResolvedColumn, value: unknown): Sql {
  const keyword = typeof value === 'string' ? value.trim().toLowerCase() : value;
  const c = column.expr;
  if (keyword === 'set') {
    if (column.kind === 'text') return column.nullable ? sql<boolean>`(${c} is not null and ${c} != '')` : sql<boolean>`${c} != ''`;
    return column.nullable ? sql<boolean>`${c} is not null` : TRUE;
  }
  if (keyword === 'not set') {
    if (column.kind === 'text') return column.nullable ? sql<boolean>`(${c} is null or ${c} = '')` : sql<boolean>`${c} = ''`;
    return column.nullable ? sql<boolean>`${c} is null` : FALSE;
  }
  throw new DataError(`The value of "is" must be "set" or "not set"; got ${show(value)} for ${column.name}`);
}

function between(column: ResolvedColumn, value: unknown, env: ConditionEnv): Sql {
  if (!Array.isArray(value) || value.length > 2) {
    throw new DataError(`The value of "between" must be a list [from, to]; got ${show(value)} for ${column.name}`);
  }
  let bounds: [unknown, unknown];
  if (isDateLike(column)) {
    // The reference fills a missing bound with today.
    const [from, to] = [value[0], value[1]].map((v) => (isBlank(v) ? env.today : v));
    bounds = dateBounds(column, from, to, env.timeZone);
  } else {
    if (value.length !== 2 || isBlank(value[0]) || isBlank(value[1])) {
      throw new DataError(`The value of "between" must be a list [from, to]; got ${show(value)} for ${column.name}`);
    }
    bounds = [toStored(column, value[0], env.timeZone), toStored(column, value[1], env.timeZone)];
  }
  return sql<boolean>`${column.expr} between ${bounds[0]} and ${bounds[1]}`;
}

function dateRange(column: ResolvedColumn, op: 'timespan' | 'previous' | 'next', value: unknown, env: ConditionEnv): Sql {
  if (!isDateLike(column)) throw new DataError(`"${op}" needs a Date or Datetime field; ${column.name} is not one`);
  const [from, to] = op === 'timespan' ? timespanRange(value, env.timeZone, env.today) : previousNextRange(op, value, env.timeZone, env.today);
  const [lo, hi] = dateBounds(column, from, to, env.timeZone);
  return sql<boolean>`${column.expr} between ${lo} and ${hi}`;
}

function leaf(column: ResolvedColumn, op: Operator, value: unknown, env: ConditionEnv): Sql {
  switch (op) {
    case '=':
      return equals(column, value, env);
    case '!=':
      return sql<boolean>`${orEmpty(column)} != ${toStored(column, value, env.timeZone)}`;
    case '<':
    case '<=':
    case '>':
    case '>=': {
      // A NULL date is never "after" anything (docs/api.md "Lists").
      const plain = (op === '>' || op === '>=') && isDateLike(column);
      return sql<boolean>`${plain ? column.expr : orEmpty(column)} ${COMPARISONS[op]} ${toStored(column, value, env.timeZone)}`;
    }
    case 'like':
    case 'not like':
      return like(column, op === 'not like', value, env);
    case 'in':
    case 'not in':
      return inList(column, op === 'not in', value, env);
    case 'is':
      return isSet(column, value);
    case 'between':
      return between(column, value, env);
    case 'timespan':
    case 'previous':
    case 'next':
      return dateRange(column, op, value, env);
  }
}

function group(parts: Sql[], joiner: 'and' | 'or'): Sql {
  if (parts.length === 0) return joiner === 'and' ? TRUE : FALSE;
  if (parts.length === 1) return parts[0];
  return sql<boolean>`(${sql.join(parts, sql.raw(` ${joiner} `))})`;
}

/** Compiles a condition tree; every column is resolved through the scope, every value is bound. */
export function compileCondition(condition: Condition, env: ConditionEnv): Sql {
  if (isLeaf(condition)) {
    if (condition.op !== 'in' && condition.op !== 'not in') spend(env, 1);
    return leaf(env.scope.resolve(condition.field, env.checkRead), condition.op, condition.value, env);
  }
  if ('and' in condition)
    return group(
      condition.and.map((c) => compileCondition(c, env)),
      'and',
    );
  if ('or' in condition)
    return group(
      condition.or.map((c) => compileCondition(c, env)),
      'or',
    );
  return sharedRows(condition.sharedWith, env);
}

/**
 * `name in (the names shared with the user)`, read from the share table (the DocShare DocType's
 * rows) by the list's own statement: one statement, and one snapshot, for the rows and the shares.
 */
function sharedRows(shared: SharedRows, env: ConditionEnv): Sql {
  const name = env.scope.resolve({ field: 'name' }, false).expr;
  const user = sql<boolean>`${sql.ref('user')} = ${shared.user}`;
  const who = shared.everyone ? sql<boolean>`(${user} or ${sql.ref('everyone')} = 1)` : user;
  return sql<boolean>`${name} in (select ${sql.ref('share_name')} from ${sql.table(SHARE_TABLE)} where ${sql.ref('share_doctype')} = ${shared.doctype} and ${sql.ref('read')} = 1 and ${who})`;
}

/** ANDs a list of conditions; an empty list is true. */
export function compileAll(conditions: readonly Condition[], env: ConditionEnv): Sql {
  return group(
    conditions.map((c) => compileCondition(c, env)),
    'and',
  );
}

/** ORs a list of conditions as one group; an empty list is true (no such group). */
export function compileAny(conditions: readonly Condition[], env: ConditionEnv): Sql {
  return conditions.length === 0
    ? TRUE
    : group(
        conditions.map((c) => compileCondition(c, env)),
        'or',
      );
}
