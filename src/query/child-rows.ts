import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { DataError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import type { Queryable, Row, SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { OutputColumn } from './compile-list-query.js';
import type { SelectItem } from './list-query.js';
import { MAIN_ALIAS, QueryScope, type ScopeContext } from './query-scope.js';
import { selectList } from './select-list.js';
import { shapeRow } from './shape-rows.js';

/*
 * The nested form of list fields, `{"items": ["item_code", "qty"]}` (docs/api.md "Lists"):
 * each result row gets the rows of that Table field as an array, ordered by `idx`. They are read
 * by one extra statement per child table and page (`parent in (<the page's names>)`), never one
 * per row, and they follow the parent's permissions: the parents are the rows the caller may see,
 * and child columns the caller may not read are dropped as list columns are.
 */

/** Parents per child statement: keeps each statement's bound values far under both engines' limits. */
const NAMES_PER_STATEMENT = 500;

/** One nested child table of a compiled list. */
export interface ChildSelection {
  /** The output key: the Table field's name. */
  readonly key: string;
  /**
   * The driver-row column the fetched rows are put under before shaping. Not a word, so it can
   * never be one of the statement's own column aliases.
   */
  readonly column: string;
  readonly parenttype: string;
  readonly tableField: string;
  readonly childTable: string;
  readonly joins: QueryScope['joins'];
  readonly select: ReadonlyArray<{ readonly expr: RawBuilder<unknown>; readonly column: string }>;
  /** The hidden column holding each child row's parent name. */
  readonly parentColumn: string;
  readonly columns: readonly OutputColumn[];
}

/**
 * Resolves the nested child-table items of a select list for `ctx.meta`. An unknown or non-Table
 * name is a DataError; a Table field the caller may not read, or one whose readable columns are
 * none, is dropped silently, as unreadable list columns are.
 */
export function childSelections(items: readonly SelectItem[], ctx: ScopeContext): ChildSelection[] {
  const out: ChildSelection[] = [];
  for (const item of items) {
    if (item.kind !== 'children') continue;
    const field = ctx.meta.field(item.table);
    const options = field?.def.options?.trim();
    if (!field?.type.isTable || !options) throw new DataError(`Field not permitted in query: ${item.table}`);
    if (out.some((c) => c.key === item.table)) throw new DataError(`Child table ${item.table} is named twice in fields`);
    if (ctx.canRead && !ctx.canRead(ctx.meta, item.table)) continue;
    const childMeta: Meta = ctx.metaOf(options);
    const scope = new QueryScope({ meta: childMeta, metaOf: ctx.metaOf, canRead: ctx.canRead, linkRows: ctx.linkRows });
    const selections = selectList(item.fields, scope);
    if (selections.length === 0) continue;
    const used = new Set(selections.map((s) => s.column));
    let parentColumn = '_parent';
    for (let n = 1; used.has(parentColumn); n++) parentColumn = `_parent${n}`;
    out.push({
      key: item.table,
      column: `children:${item.table}`,
      parenttype: ctx.meta.name,
      tableField: item.table,
      childTable: childMeta.tableName,
      joins: scope.joins,
      select: selections.map((s) => ({ expr: s.expr, column: s.column })),
      parentColumn,
      columns: selections.map((s) => (s.convert ? { key: s.key, column: s.column, convert: s.convert } : { key: s.key, column: s.column })),
    });
  }
  return out;
}

// Compile-only builder (Kysely<any>), as in compile-list-query.ts.
// biome-ignore lint/suspicious/noExplicitAny: a compile-only Kysely builder has no schema type (src/storage/compile-only.ts)
type Builder = SelectQueryBuilder<any, any, any>;

function childStatement(dialect: Dialect, child: ChildSelection, names: readonly string[]): SqlStatement {
  let qb: Builder = dialect.builder.selectFrom(sql.id(child.childTable).as(MAIN_ALIAS));
  for (const join of child.joins) qb = qb.leftJoin(sql.id(join.table).as(join.alias), (j) => j.on(join.on));
  const t = (column: string) => sql.id(MAIN_ALIAS, column);
  const { sql: text, parameters } = qb
    .select([...child.select.map((s) => s.expr.as(s.column)), t('parent').as(child.parentColumn)])
    .where(sql<boolean>`${t('parenttype')} = ${child.parenttype} and ${t('parentfield')} = ${child.tableField} and ${t('parent')} in (${sql.join(names)})`)
    .orderBy(t('parent'))
    .orderBy(t('idx'))
    .compile();
  return { sql: text, parameters };
}

/**
 * Reads the child rows of `rows` (driver rows carrying the parent name in `nameColumn`) and returns
 * copies of them with each child table's shaped rows under its {@link ChildSelection.column}.
 */
export async function withChildRows(
  q: Queryable,
  dialect: Dialect,
  children: readonly ChildSelection[],
  nameColumn: string,
  rows: readonly Row[],
  asDict: boolean,
): Promise<Row[]> {
  const out = rows.map((r) => ({ ...r }));
  if (rows.length === 0) return out;
  const names = [...new Set(rows.map((r) => String(r[nameColumn])))];
  for (const child of children) {
    const byParent = new Map<string, unknown[]>();
    for (let i = 0; i < names.length; i += NAMES_PER_STATEMENT) {
      for (const row of await q.all(childStatement(dialect, child, names.slice(i, i + NAMES_PER_STATEMENT)))) {
        const parent = String(row[child.parentColumn]);
        let list = byParent.get(parent);
        if (!list) byParent.set(parent, (list = []));
        list.push(shapeRow(row, child.columns, asDict));
      }
    }
    for (const row of out) row[child.column] = byParent.get(String(row[nameColumn])) ?? [];
  }
  return out;
}
