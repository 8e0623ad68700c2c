import { createHash, randomBytes } from 'node:crypto';
import { AUTH_TABLE } from '../auth/auth-tables.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** The `__Auth` field a user's one live reset key is kept under: its SHA-256 and creation time, never the key. */
const RESET_FIELD = 'reset_password_key';

/** A new key: 32 random bytes for the link, and the hash that is stored. */
export function newResetKey(): { key: string; hash: string } {
  const key = randomBytes(32).toString('base64url');
  return { key, hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Stores the hash of the user's reset key with its creation time, replacing an earlier key.
 * `lifetimeS` gives a key its own life (a welcome link); without it the reset expiry applies.
 */
export async function storeResetKey(q: Queryable, dialect: Dialect, user: string, hash: string, createdMs: number, lifetimeS?: number): Promise<void> {
  const password = lifetimeS === undefined ? `${hash}:${createdMs}` : `${hash}:${createdMs}:${lifetimeS}`;
  await q.run(
    dialect.builder
      .insertInto(AUTH_TABLE)
      .values({ doctype: 'User', name: user, fieldname: RESET_FIELD, password, encrypted: 0 })
      .onConflict((oc) => oc.columns(['doctype', 'name', 'fieldname']).doUpdateSet({ password, encrypted: 0 }))
      .compile(),
  );
}

/** The user and creation time a key hash belongs to, if a live row holds it. */
export async function findResetKey(
  q: Queryable,
  dialect: Dialect,
  hash: string,
): Promise<{ user: string; createdMs: number; lifetimeS: number | undefined } | undefined> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  const rows = await q.all<{ name: string; password: string }>(
    dialect.builder
      .selectFrom(AUTH_TABLE)
      .select(['name', 'password'])
      .where('doctype', '=', 'User')
      .where('fieldname', '=', RESET_FIELD)
      .where('password', 'like', `${hash}:%`)
      .compile(),
  );
  const row = rows[0];
  if (!row) return undefined;
  const [, created, lifetime] = String(row.password).split(':');
  return { user: String(row.name), createdMs: Number(created), lifetimeS: lifetime === undefined ? undefined : Number(lifetime) };
}

/** Voids the user's reset key (used, or the password changed another way). */
export async function clearResetKey(q: Queryable, dialect: Dialect, user: string): Promise<void> {
  await q.run(dialect.builder.deleteFrom(AUTH_TABLE).where('doctype', '=', 'User').where('name', '=', user).where('fieldname', '=', RESET_FIELD).compile());
}
