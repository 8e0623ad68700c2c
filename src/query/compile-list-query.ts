import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { DataError, PermissionError } from '../errors/index.js';
import type { SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { Meta } from '../meta/meta.js';
import { childSelections, type ChildSelection } from './child-rows.js';
import { compileAll, compileAny, compileCondition, conditionEnv } from './compile-condition.js';
import { MAX_STATEMENT_PARAMETERS } from './list-limits.js';
import { refText, type Condition, type ListQuery } from './list-query.js';
import { linkRowsCondition } from './link-rows.js';
import { MAIN_ALIAS, QueryScope, type ScopeContext } from './query-scope.js';
import type { ResolvedColumn } from './resolved-column.js';
import { selectList, type Selection } from './select-list.js';

/** What compiling a list query needs besides the query. */
export interface CompileContext extends ScopeContext {
  readonly dialect: Dialect;
  /** The site's IANA time zone: dates in filters and `timespan` ranges are computed in it. */
  readonly timeZone: string;
  /** A condition from the permission layer (e.g. `owner = user`), ANDed with the filters. */
  readonly restrict?: Condition;
  /**
   * For a child DocType listed through its parent: the permission layer's condition on the parent
   * DocType. Only rows whose `parent` is a parent document matching it are listed.
   */
  readonly parentRestrict?: { readonly meta: Meta; readonly condition: Condition };
  /** Direction of an order_by term that names none: `asc` in v1, `desc` in v2 (docs/api.md "Lists"). */
  readonly defaultDirection?: 'asc' | 'desc';
  /** Today as `YYYY-MM-DD`, for reproducible date ranges; defaults to today in `timeZone`. */
  readonly today?: string;
  /** The row conditions of DocTypes reached through Link joins (link-rows.ts). */
  readonly linkRestrictions?: ReadonlyMap<string, Condition>;
}

/** One output column: `key` in JSON, `column` in the driver's row, `convert` to its JSON form. */
export interface OutputColumn {
  readonly key: string;
  readonly column: string;
  readonly convert?: (value: unknown) => unknown;
}

/** A compiled list query and how to read its rows. */
export interface CompiledList {
  readonly statement: SqlStatement;
  readonly columns: OutputColumn[];
  /** Nested child tables (`{"items": [...]}`), read per page by child-rows.ts; empty for most lists. */
  readonly children: readonly ChildSelection[];
  /** The driver column holding each row's `name`, when `children` needs it. */
  readonly nameColumn?: string;
}

interface OrderItem {
  readonly expr: RawBuilder<unknown>;
  readonly identity: string | undefined;
  readonly direction: 'asc' | 'desc';
  readonly nullable: boolean;
}

/** Rows past any real page size, for an offset without a limit (SQLite needs a LIMIT there). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * `t.parent in (select name from <parent table> where <restriction>)`. The sub-select has its own
 * scope over the parent DocType; its alias shadows the outer one only inside the sub-select.
 */
function parentCondition(ctx: CompileContext): RawBuilder<boolean> | undefined {
  if (!ctx.parentRestrict) return undefined;
  const { meta, condition } = ctx.parentRestrict;
  const scope = new QueryScope({ meta, metaOf: ctx.metaOf });
  const where = compileCondition(condition, conditionEnv(scope, ctx, false));
  let qb: Builder = ctx.dialect.builder.selectFrom(sql.id(meta.tableName).as(MAIN_ALIAS));
  for (const join of scope.joins) qb = qb.leftJoin(sql.id(join.table).as(join.alias), (j) => j.on(join.on));
  const names = qb.select(scope.mainName.expr.as('name')).where(where);
  return sql<boolean>`${sql.id(MAIN_ALIAS, 'parent')} in (${names})`;
}

/** The WHERE clause: filters AND (or_filters ORed) AND the restrictions; undefined when empty. */
function whereClause(query: ListQuery, scope: QueryScope, ctx: CompileContext): RawBuilder<boolean> | undefined {
  const env = conditionEnv(scope, ctx, true);
  const parts: RawBuilder<boolean>[] = [];
  if (query.filters.length > 0) parts.push(compileAll(query.filters, env));
  if (query.orFilters.length > 0) parts.push(compileAny(query.orFilters, env));
  if (ctx.restrict) parts.push(compileCondition(ctx.restrict, conditionEnv(scope, ctx, false)));
  const byParent = parentCondition(ctx);
  if (byParent) parts.push(byParent);
  return parts.length === 0 ? undefined : sql<boolean>`${sql.join(parts, sql.raw(' and '))}`;
}

/** The statement of a compiled builder, refused when it binds more values than the engines take. */
function statementOf(qb: { compile(): { sql: string; parameters: readonly unknown[] } }): SqlStatement {
  const { sql: text, parameters } = qb.compile();
  if (parameters.length > MAX_STATEMENT_PARAMETERS) {
    throw new DataError(`The list request binds too many values (${parameters.length}; at most ${MAX_STATEMENT_PARAMETERS})`);
  }
  return { sql: text, parameters };
}

function assertDoctype(query: ListQuery, ctx: CompileContext): void {
  // A programming error, not a client one: the caller looked up the wrong metadata.
  if (query.doctype !== ctx.meta.name) throw new Error(`Query for ${query.doctype} compiled with meta of ${ctx.meta.name}`);
}

function orderItems(
  query: ListQuery,
  scope: QueryScope,
  ctx: CompileContext,
  selections: readonly Selection[],
  groupColumns: readonly ResolvedColumn[],
  grouped: { readonly active: boolean; readonly identities: ReadonlySet<string> },
): OrderItem[] {
  const isGrouped = (identity: string | undefined) => !grouped.active || (identity !== undefined && grouped.identities.has(identity));
  const items: OrderItem[] = [];
  if (query.orderBy === undefined) {
    // An aggregate over the whole table gives one row: nothing to order.
    if (grouped.active && grouped.identities.size === 0) return [];
    const { field, order } = ctx.meta.defaultSort;
    const column = scope.resolve({ field }, false);
    // Grouped rows cannot be sorted by an ungrouped column; the groups themselves keep pages stable.
    const defaults = isGrouped(column.identity) ? [column] : groupColumns;
    for (const c of defaults) items.push({ expr: c.expr, identity: c.identity, direction: order, nullable: c.nullable });
  } else {
    for (const term of query.orderBy) {
      const direction = term.direction ?? ctx.defaultDirection ?? 'asc';
      const plain = term.field.via === undefined && term.field.doctype === undefined;
      const aliased = plain ? selections.find((s) => s.alias === term.field.field) : undefined;
      if (aliased) {
        items.push({ expr: aliased.expr, identity: aliased.identity, direction, nullable: aliased.nullable });
        continue;
      }
      const column = scope.resolve(term.field);
      if (!isGrouped(column.identity)) throw new DataError(`order_by field must be in group_by: ${refText(term.field)}`);
      items.push({ expr: column.expr, identity: column.identity, direction, nullable: column.nullable });
    }
  }
  const name = scope.mainName;
  if (isGrouped(name.identity) && !items.some((i) => i.identity === name.identity)) {
    const direction = items.at(-1)?.direction ?? ctx.meta.defaultSort.order;
    items.push({ expr: name.expr, identity: name.identity, direction, nullable: false });
  }
  return items;
}

// The builder is compile-only and untyped (Kysely<any>); its row type carries no information here.
// biome-ignore lint/suspicious/noExplicitAny: a compile-only Kysely builder has no schema type (src/storage/compile-only.ts)
type Builder = SelectQueryBuilder<any, any, any>;

function fromWithJoins(scope: QueryScope, ctx: CompileContext): Builder {
  let qb: Builder = ctx.dialect.builder.selectFrom(sql.id(ctx.meta.tableName).as(MAIN_ALIAS));
  for (const join of scope.joins) {
    qb = qb.leftJoin(sql.id(join.table).as(join.alias), (j) => j.on(join.on));
  }
  return qb;
}

/**
 * Compiles a list query into one SELECT for the context's dialect. Every name is checked against
 * metadata first (an unknown one is a 417 DataError "Field not permitted in query"), values are
 * bound parameters, and the returned columns say how to turn each row into JSON.
 */
export function compileListQuery(query: ListQuery, ctx: CompileContext): CompiledList {
  assertDoctype(query, ctx);
  const linkRows = linkRowsCondition(ctx);
  const scoped = linkRows ? { ...ctx, linkRows } : ctx;
  const scope = new QueryScope(scoped);
  const selections = selectList(query.fields, scope);
  const children = childSelections(query.fields, scoped);
  if (selections.length === 0 && children.length === 0) throw new PermissionError(`No readable fields selected in ${ctx.meta.name}`);
  const where = whereClause(query, scope, ctx);
  const groupColumns = query.groupBy.map((ref) => scope.resolve(ref));
  const active = groupColumns.length > 0 || selections.some((s) => s.aggregate);
  const identities = new Set(groupColumns.map((c) => c.identity));
  if (active) {
    const loose = selections.find((s) => !s.aggregate && !(s.identity !== undefined && identities.has(s.identity)));
    if (loose) throw new DataError(`Field must be in group_by or aggregated: ${loose.key}`);
  }
  if (active && query.fields.some((f) => f.kind === 'children')) {
    throw new DataError('Child rows cannot be listed with group_by or aggregates');
  }
  const order = orderItems(query, scope, ctx, selections, groupColumns, { active, identities });

  const selected = selections.map((s) => s.expr.as(s.column));
  let nameColumn: string | undefined;
  if (children.length > 0) {
    const used = new Set(selections.map((s) => s.column));
    nameColumn = '_name';
    for (let n = 1; used.has(nameColumn); n++) nameColumn = `_name${n}`;
    selected.push(scope.mainName.expr.as(nameColumn));
  }
  let qb = fromWithJoins(scope, ctx).select(selected);
  if (where) qb = qb.where(where);
  if (groupColumns.length > 0) qb = qb.groupBy(groupColumns.map((c) => c.expr));
  for (const item of order) {
    qb = qb.orderBy(item.expr, (ob) => {
      if (item.direction === 'asc') return item.nullable ? ob.asc().nullsFirst() : ob.asc();
      return item.nullable ? ob.desc().nullsLast() : ob.desc();
    });
  }
  if (query.pageLength > 0) qb = qb.limit(query.pageLength);
  else if (query.start > 0) qb = qb.limit(NO_LIMIT);
  if (query.start > 0) qb = qb.offset(query.start);

  const columns: OutputColumn[] = selections.map((s) => (s.convert ? { key: s.key, column: s.column, convert: s.convert } : { key: s.key, column: s.column }));
  // Nested child arrays follow the parent's own columns, in the order the request named them.
  for (const child of children) columns.push({ key: child.key, column: child.column });
  return { statement: statementOf(qb), columns, children, ...(nameColumn === undefined ? {} : { nameColumn }) };
}

/**
 * Compiles the count of documents matching the query's filters and the restriction, as one row
 * with the column `count` (a string on PostgreSQL: read it with Number()). Joins to child tables
 * count each document once.
 */
export function compileCountQuery(query: ListQuery, ctx: CompileContext): SqlStatement {
  assertDoctype(query, ctx);
  const linkRows = linkRowsCondition(ctx);
  const scope = new QueryScope(linkRows ? { ...ctx, linkRows } : ctx);
  const where = whereClause(query, scope, ctx);
  const counted = scope.joins.some((j) => j.kind === 'child') ? sql`count(distinct ${scope.mainName.expr})` : sql`count(*)`;
  let qb = fromWithJoins(scope, ctx).select(counted.as('count'));
  if (where) qb = qb.where(where);
  return statementOf(qb);
}
