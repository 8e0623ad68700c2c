import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** What the look-ups read with. */
export interface UserNameContext {
  readonly q: Queryable;
  readonly dialect: Dialect;
}

/**
 * The user `login` means, exactly one or none: the user of that exact name, else the user whose
 * email it is (emails are stored lower-cased, so any case of it). A name never matches two users,
 * since names are unique without regard to case and never equal another user's email
 * ({@link userNameClash}); docs/security.md, "Authentication".
 */
export async function findLoginUser(ctx: UserNameContext, login: string): Promise<string | undefined> {
  const wanted = login.trim();
  if (wanted === '') return undefined;
  const rows = await ctx.q.all<{ name: string; email: string | null }>(
    ctx.dialect.builder
      .selectFrom('tabUser')
      .select(['name', 'email'])
      .where((eb) => eb.or([eb('name', '=', wanted), eb('email', '=', wanted.toLowerCase())]))
      .limit(3)
      .compile(),
  );
  const byName = rows.find((r) => r.name === wanted);
  if (byName) return byName.name;
  return rows.length === 1 ? rows[0]!.name : undefined;
}

/**
 * The existing user that `name` would be confused with, if any: one whose name differs from it
 * only in case, or whose email it is. `self` (the user being saved or renamed) is left out. Owner
 * checks compare names exactly, so two names differing in case must never both exist.
 */
export async function userNameClash(ctx: UserNameContext, name: string, self?: string): Promise<string | undefined> {
  const lower = name.toLowerCase();
  const rows = await ctx.q.all<{ name: string }>(
    ctx.dialect.builder
      .selectFrom('tabUser')
      .select('name')
      .where((eb) => eb.or([eb(eb.fn('lower', ['name']), '=', lower), eb('email', '=', lower)]))
      .compile(),
  );
  return rows.map((r) => r.name).find((n) => n !== self);
}
