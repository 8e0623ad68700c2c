import { sql } from 'kysely';
import type { Database } from '../../src/storage/database.js';
import { createAuthTables } from '../../src/auth/auth-tables.js';

/** A user row for {@link insertTestUser}. */
export interface TestUser {
  readonly name: string;
  readonly enabled?: 0 | 1;
  readonly userType?: string | null;
  readonly apiKey?: string | null;
  readonly roles?: readonly string[];
}

/**
 * Creates the auth tables and minimal `tabUser` / `tabHas Role` tables in an empty database. The
 * real User and Has Role tables come from DocType metadata; these carry only the columns the auth
 * modules read, under the same names.
 */
export async function createAuthTestTables(db: Database): Promise<void> {
  const schema = db.dialect.builder.schema;
  const varchar = sql.raw(db.dialect.columnType({ kind: 'varchar', length: 140 }));
  const int = sql.raw(db.dialect.columnType({ kind: 'int' }));
  await db.transaction(async (q) => {
    await createAuthTables(q, db.dialect);
    await q.run(
      schema
        .createTable('tabUser')
        .addColumn('name', varchar, (c) => c.primaryKey())
        .addColumn('enabled', int, (c) => c.notNull().defaultTo(1))
        .addColumn('user_type', varchar)
        .addColumn('api_key', varchar)
        .compile(),
    );
    await q.run(
      schema
        .createTable('tabHas Role')
        .addColumn('name', varchar, (c) => c.primaryKey())
        .addColumn('parent', varchar)
        .addColumn('parenttype', varchar)
        .addColumn('parentfield', varchar)
        .addColumn('role', varchar)
        .addColumn('idx', int)
        .compile(),
    );
  });
}

/** Inserts a user and its `Has Role` rows. */
export async function insertTestUser(db: Database, user: TestUser): Promise<void> {
  const b = db.dialect.builder;
  await db.transaction(async (q) => {
    await q.run(
      b
        .insertInto('tabUser')
        .values({
          name: user.name,
          enabled: user.enabled ?? 1,
          user_type: user.userType === undefined ? 'System User' : user.userType,
          api_key: user.apiKey ?? null,
        })
        .compile(),
    );
    let idx = 0;
    for (const role of user.roles ?? []) {
      idx += 1;
      await q.run(
        b
          .insertInto('tabHas Role')
          .values({ name: `${user.name}-${role}`, parent: user.name, parenttype: 'User', parentfield: 'roles', role, idx })
          .compile(),
      );
    }
  });
}

/** Sets `enabled` on a test user. */
export async function setTestUserEnabled(db: Database, name: string, enabled: 0 | 1): Promise<void> {
  await db.transaction((q) => q.run(db.dialect.builder.updateTable('tabUser').set({ enabled }).where('name', '=', name).compile()));
}
