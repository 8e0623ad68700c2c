import { sql } from 'kysely';
import type { ResolvedField } from '../../meta/meta.js';
import type { Queryable, SqlStatement } from '../../storage/database.js';
import type { Dialect } from '../../storage/dialect.js';

/** Where Single DocTypes keep their values, as the reference does: one text row per (doctype, field). */
export const SINGLES_TABLE = '__Singles';

/** The stored rows of one Single: field name -> text (null for a value stored as NULL). */
export type SingleRows = Map<string, string | null>;

/** The DDL of the Singles table, created at install next to the other system tables. */
export function singlesTableStatement(dialect: Dialect): SqlStatement {
  const varchar = sql.raw(dialect.columnType({ kind: 'varchar', length: 140 }));
  return dialect.builder.schema
    .createTable(SINGLES_TABLE)
    .ifNotExists()
    .addColumn('doctype', varchar, (c) => c.notNull())
    .addColumn('field', varchar, (c) => c.notNull())
    .addColumn('value', sql.raw(dialect.columnType({ kind: 'text' })))
    .addPrimaryKeyConstraint('__Singles_pkey', ['doctype', 'field'])
    .compile();
}

/**
 * The stored rows of `doctype`. With `forUpdate` (PostgreSQL) the rows are locked first and then
 * read again, so a save waiting for another one sees every row that one committed, new rows too.
 */
export async function readSingleRows(q: Queryable, dialect: Dialect, doctype: string, opts: { forUpdate?: boolean } = {}): Promise<SingleRows> {
  const query = dialect.builder.selectFrom(SINGLES_TABLE).select(['field', 'value']).where('doctype', '=', doctype);
  if (opts.forUpdate && dialect.supportsRowLocks) await q.all(query.forUpdate().compile());
  const rows = await q.all<{ field: string; value: unknown }>(query.compile());
  return new Map(rows.map((r) => [r.field, r.value === null || r.value === undefined ? null : String(r.value)]));
}

/** Upserts one row per entry of `values`. `keep` names fields whose stored row must not change once written (owner, creation). */
export async function writeSingleRows(
  q: Queryable,
  dialect: Dialect,
  doctype: string,
  values: ReadonlyMap<string, string | null>,
  keep: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const [field, value] of values) {
    await q.run(
      dialect.builder
        .insertInto(SINGLES_TABLE)
        .values({ doctype, field, value })
        .onConflict((oc) => {
          const target = oc.columns(['doctype', 'field']);
          return keep.has(field) ? target.doNothing() : target.doUpdateSet({ value });
        })
        .compile(),
    );
  }
}

/** Removes every stored row of `doctype` (its DocType was deleted). */
export async function deleteSingleRows(q: Queryable, dialect: Dialect, doctype: string): Promise<void> {
  await q.run(dialect.builder.deleteFrom(SINGLES_TABLE).where('doctype', '=', doctype).compile());
}

/** A value in its stored form as Singles-table text: numbers and flags as digits, objects as JSON. */
export function toSingleText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Stored text turned back into the field's JSON form (numbers, normalised timestamps, parsed JSON). */
export function fromSingleText(field: ResolvedField, text: string | null): unknown {
  if (text === null) return null;
  return field.type.fromDb ? field.type.fromDb(text, field.def) : text;
}
