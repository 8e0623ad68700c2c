import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../storage/dialect.js';
import type { Meta } from '../meta/meta.js';
import { compileCondition, conditionEnv } from './compile-condition.js';
import type { Condition } from './list-query.js';
import { MAIN_ALIAS, QueryScope } from './query-scope.js';

/** What restricting joined rows needs from the compile context. */
export interface LinkRowsContext {
  readonly dialect: Dialect;
  readonly timeZone: string;
  readonly today?: string;
  readonly metaOf: (doctype: string) => Meta;
  /**
   * The permission layer's row condition of each DocType a Link join may reach, by DocType name
   * (listRestriction of that DocType); a DocType absent here is joined without one.
   */
  readonly linkRestrictions?: ReadonlyMap<string, Condition>;
}

// Compile-only builder (Kysely<any>), as in compile-list-query.ts.
// biome-ignore lint/suspicious/noExplicitAny: a compile-only Kysely builder has no schema type (src/storage/compile-only.ts)
type Builder = SelectQueryBuilder<any, any, any>;

/**
 * The extra ON condition of a Link join to `target` under `alias`:
 * `alias.name in (select name from <target> where <its restriction>)`. A linked row the caller
 * may not read then joins as no row at all, so its columns read as NULL in fields, filters,
 * order_by and group_by alike, and a filter on them tells nothing about it (docs/security.md,
 * "Permissions"). The sub-select has its own scope, whose alias shadows the outer one inside it.
 */
export function linkRowsCondition(ctx: LinkRowsContext): ((alias: string, target: Meta) => RawBuilder<boolean> | undefined) | undefined {
  const restrictions = ctx.linkRestrictions;
  if (!restrictions || restrictions.size === 0) return undefined;
  return (alias, target) => {
    const condition = restrictions.get(target.name);
    if (condition === undefined) return undefined;
    const scope = new QueryScope({ meta: target, metaOf: ctx.metaOf });
    const where = compileCondition(condition, conditionEnv(scope, ctx, false));
    let qb: Builder = ctx.dialect.builder.selectFrom(sql.id(target.tableName).as(MAIN_ALIAS));
    for (const join of scope.joins) qb = qb.leftJoin(sql.id(join.table).as(join.alias), (j) => j.on(join.on));
    const names = qb.select(scope.mainName.expr.as('name')).where(where);
    return sql<boolean>`${sql.id(alias, 'name')} in (${names})`;
  };
}
