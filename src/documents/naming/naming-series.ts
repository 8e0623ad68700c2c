import { sql } from 'kysely';
import { ValidationError } from '../../errors/index.js';
import type { Queryable, SqlStatement } from '../../storage/database.js';
import type { Dialect } from '../../storage/dialect.js';

/** The table holding every counter: one row per series prefix (and per autoincrement DocType). */
export const SERIES_TABLE = '__Series';

/*
 * Autoincrement counters live in the same table under keys no series prefix can take: a prefix is
 * the text before the first `#` part of a pattern, so it only starts with `#` when a field value
 * does, and nextSeriesValue refuses that one spelling.
 */
const AUTOINCREMENT_KEY = '#autoincrement:';

/** The counter table's DDL; safe to run on every start (create if not exists). */
export function seriesTableStatement(dialect: Dialect): SqlStatement {
  return dialect.builder.schema
    .createTable(SERIES_TABLE)
    .ifNotExists()
    .addColumn('name', sql.raw(dialect.columnType({ kind: 'varchar', length: 140 })), (c) => c.primaryKey())
    .addColumn('current', sql.raw(dialect.columnType({ kind: 'int' })), (c) => c.notNull().defaultTo(0))
    .compile();
}

/** What the counters need: the connection of the current transaction and its dialect. */
export interface SeriesContext {
  readonly q: Queryable;
  readonly dialect: Dialect;
}

/**
 * Takes the next number of the counter `key` in one statement (insert, or add one on conflict).
 * The row stays locked until the transaction ends, so two transactions never get the same number;
 * a rolled-back transaction gives its number back.
 */
async function increment(ctx: SeriesContext, key: string): Promise<number> {
  const statement = ctx.dialect.builder
    .insertInto(SERIES_TABLE)
    .values({ name: key, current: 1 })
    .onConflict((oc) => oc.column('name').doUpdateSet({ current: sql`${sql.ref(`${SERIES_TABLE}.current`)} + 1` }))
    .returning('current')
    .compile();
  const rows = await ctx.q.all<{ current: number | string }>(statement);
  return Number(rows[0].current);
}

/** The next number of the series whose resolved prefix is `prefix` (shared by every DocType using it). */
export async function nextSeriesValue(ctx: SeriesContext, prefix: string): Promise<number> {
  if (prefix.startsWith(AUTOINCREMENT_KEY)) {
    throw new ValidationError(`Invalid naming series prefix: ${prefix}`);
  }
  return increment(ctx, prefix);
}

/** The next autoincrement number of `doctype`. */
export async function nextAutoincrementValue(ctx: SeriesContext, doctype: string): Promise<number> {
  return increment(ctx, AUTOINCREMENT_KEY + doctype);
}

/**
 * Moves the autoincrement counter of `doctype` up to `used` when a client supplied that number
 * as a name, so later documents continue after it instead of clashing with it.
 */
export async function noteAutoincrementValue(ctx: SeriesContext, doctype: string, used: number): Promise<void> {
  const current = sql.ref(`${SERIES_TABLE}.current`);
  const proposed = sql.ref('excluded.current');
  const statement = ctx.dialect.builder
    .insertInto(SERIES_TABLE)
    .values({ name: AUTOINCREMENT_KEY + doctype, current: used })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        current: sql`case when ${current} < ${proposed} then ${proposed} else ${current} end`,
      }),
    )
    .compile();
  await ctx.q.run(statement);
}
