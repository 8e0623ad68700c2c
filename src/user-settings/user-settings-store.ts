import { sql } from 'kysely';
import type { Queryable, SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/**
 * Each user's settings per DocType (list columns, filters, sort, page length per view), as the
 * reference keeps them: one JSON object per user and DocType (docs/api.md "Per-user settings"). An
 * internal table (reserved `__` prefix), so no DocType names it and the resource API never reaches it.
 */
export const USER_SETTINGS_TABLE = '__UserSettings';

/** CREATE TABLE, idempotent (run at every site open, like the other system tables). */
export function userSettingsTableStatements(dialect: Dialect): SqlStatement[] {
  const type = (spec: Parameters<Dialect['columnType']>[0]) => sql.raw(dialect.columnType(spec));
  return [
    dialect.builder.schema
      .createTable(USER_SETTINGS_TABLE)
      .ifNotExists()
      .addColumn('user', type({ kind: 'varchar', length: 140 }), (c) => c.notNull())
      .addColumn('doctype', type({ kind: 'varchar', length: 140 }), (c) => c.notNull())
      .addColumn('data', type({ kind: 'text' }))
      .addPrimaryKeyConstraint('__UserSettings_pk', ['user', 'doctype'])
      .compile(),
  ];
}

/** The stored settings of `user` for `doctype`, `{}` when there are none or they do not parse. */
export async function readUserSettings(q: Queryable, dialect: Dialect, user: string, doctype: string): Promise<Record<string, unknown>> {
  const rows = await q.all<{ data: string | null }>(
    dialect.builder.selectFrom(USER_SETTINGS_TABLE).select('data').where('user', '=', user).where('doctype', '=', doctype).compile(),
  );
  try {
    const parsed: unknown = JSON.parse(rows[0]?.data ?? '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Merges `changes` into the stored settings key by key (a key replaces the stored value, as the
 * reference's update does) and stores the result; returns it. Runs in the caller's transaction.
 */
export async function mergeUserSettings(
  q: Queryable,
  dialect: Dialect,
  user: string,
  doctype: string,
  changes: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const merged = { ...(await readUserSettings(q, dialect, user, doctype)), ...changes };
  const b = dialect.builder;
  await q.run(b.deleteFrom(USER_SETTINGS_TABLE).where('user', '=', user).where('doctype', '=', doctype).compile());
  await q.run(
    b
      .insertInto(USER_SETTINGS_TABLE)
      .values({ user, doctype, data: JSON.stringify(merged) })
      .compile(),
  );
  return merged;
}
