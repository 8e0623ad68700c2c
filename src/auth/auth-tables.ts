import { sql } from 'kysely';
import type { Queryable, SqlStatement } from '../storage/database.js';
import type { ColumnSpec, Dialect } from '../storage/dialect.js';

/** Password hashes, API-secret hashes and encrypted Password-field values, keyed by document field. */
export const AUTH_TABLE = '__Auth';
/** Server-side login sessions, shared by every process serving the site (a reserved name: no DocType table starts with `__`). */
export const SESSIONS_TABLE = '__Sessions';
/** Failed-login counters per user and per IP, for the login lockout. */
export const LOGIN_ATTEMPT_TABLE = '__LoginAttempt';

/** Length of names (document names, field names), as the reference's varchar(140). */
const NAME_LENGTH = 140;

/*
 * Session and throttle times are epoch milliseconds (bigint), not `YYYY-MM-DD HH:MM:SS.ffffff`
 * text: they are never shown to clients, only compared with "now", and epoch values stay correct
 * when the site's time zone or a DST shift changes the wall clock.
 */

/**
 * Idempotent DDL for the authentication tables (`create table if not exists`), in the order
 * it must run; safe to execute on every start.
 */
export function authTableStatements(dialect: Dialect): SqlStatement[] {
  const schema = dialect.builder.schema;
  const type = (spec: ColumnSpec) => sql.raw(dialect.columnType(spec));
  const name = type({ kind: 'varchar', length: NAME_LENGTH });
  const epochMs = type({ kind: 'bigint' });

  return [
    schema
      .createTable(AUTH_TABLE)
      .ifNotExists()
      .addColumn('doctype', name, (c) => c.notNull())
      .addColumn('name', name, (c) => c.notNull())
      .addColumn('fieldname', name, (c) => c.notNull())
      .addColumn('password', type({ kind: 'text' }), (c) => c.notNull())
      // 0: a one-way hash (login password, API secret); 1: a reversible AES-GCM ciphertext.
      .addColumn('encrypted', type({ kind: 'int' }), (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint(`${AUTH_TABLE}_pkey`, ['doctype', 'name', 'fieldname'])
      .compile(),
    schema
      .createTable(SESSIONS_TABLE)
      .ifNotExists()
      .addColumn('sid', type({ kind: 'varchar', length: 64 }), (c) => c.primaryKey())
      .addColumn('user', name, (c) => c.notNull())
      .addColumn('created', epochMs, (c) => c.notNull())
      .addColumn('last_updated', epochMs, (c) => c.notNull())
      .addColumn('expires_at', epochMs, (c) => c.notNull())
      .addColumn('ip', type({ kind: 'varchar', length: NAME_LENGTH }))
      .addColumn('user_agent', type({ kind: 'text' }))
      // Issued to a page on demand (docs/security.md, "CSRF"); null until then.
      .addColumn('csrf_token', type({ kind: 'varchar', length: 64 }))
      .compile(),
    schema.createIndex(`${SESSIONS_TABLE}_user_index`).ifNotExists().on(SESSIONS_TABLE).column('user').compile(),
    schema.createIndex(`${SESSIONS_TABLE}_expires_at_index`).ifNotExists().on(SESSIONS_TABLE).column('expires_at').compile(),
    schema
      .createTable(LOGIN_ATTEMPT_TABLE)
      .ifNotExists()
      // e.g. `user:jane@example.com` or `ip:203.0.113.9`
      .addColumn('key', type({ kind: 'varchar', length: 255 }), (c) => c.primaryKey())
      .addColumn('failures', type({ kind: 'int' }), (c) => c.notNull().defaultTo(0))
      .addColumn('window_start', epochMs, (c) => c.notNull())
      .compile(),
  ];
}

/** Runs {@link authTableStatements} on `q`, then adds what older tables lack. */
export async function createAuthTables(q: Queryable, dialect: Dialect): Promise<void> {
  for (const statement of authTableStatements(dialect)) await q.run(statement);
  await addMissingAuthColumns(q, dialect);
}

/** Columns later versions added to the authentication tables; idempotent. */
export async function addMissingAuthColumns(q: Queryable, dialect: Dialect): Promise<void> {
  const columns = (await dialect.listColumns(q, SESSIONS_TABLE)).map((c) => c.name);
  if (!columns.includes('csrf_token')) {
    const varchar = sql.raw(dialect.columnType({ kind: 'varchar', length: 64 }));
    await q.run(dialect.builder.schema.alterTable(SESSIONS_TABLE).addColumn('csrf_token', varchar).compile());
  }
}
