import { randomBytes } from 'node:crypto';
import type { ApiCredentials } from '../auth/api-keys.js';
import { issueApiKeys } from '../auth/issue-api-keys.js';
import { ADMINISTRATOR_USER, makePrincipal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import { DoesNotExistError } from '../errors/index.js';
import type { Site } from './site.js';
import { findLoginUser } from '../auth/user-names.js';

/** Operator tasks act as the Administrator, as `fw` on the server is trusted with the site. */
const OPERATOR = makePrincipal({ user: ADMINISTRATOR_USER, roles: [] });

/** A new user for {@link addUser}. */
export interface NewUser {
  readonly email: string;
  readonly firstName?: string;
  /** Generated (and returned) when absent. */
  readonly password?: string;
  readonly roles?: readonly string[];
}

/** A random password of 96 bits, for when the operator gives none. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}

/** The name of the user called `nameOrEmail` (by exact name, else by email in any case). */
async function findUserName(ctx: DocContext, nameOrEmail: string): Promise<string> {
  const wanted = nameOrEmail.trim();
  const name = await findLoginUser(ctx, wanted);
  if (name === undefined) {
    throw new DoesNotExistError(`No user "${wanted}" in this site; add one with \`fw user add ${wanted}\``, { doctype: 'User' });
  }
  return name;
}

/** Refuses role names the site does not have, naming the ones it does. */
async function checkRoles(ctx: DocContext, roles: readonly string[]): Promise<void> {
  if (roles.length === 0) return;
  const rows = await ctx.q.all<{ name: string }>(ctx.dialect.builder.selectFrom('tabRole').select('name').orderBy('name').compile());
  const known = new Set(rows.map((r) => r.name));
  const missing = roles.filter((r) => !known.has(r));
  if (missing.length > 0) {
    throw new DoesNotExistError(
      `No role ${missing.map((r) => `"${r}"`).join(', ')} in this site; create it first (POST /api/resource/Role) ` + `or use one of: ${[...known].join(', ')}`,
      { doctype: 'Role' },
    );
  }
}

/**
 * Creates a user through the document service (the User controller lower-cases the email, names
 * the user after it and hashes the password). Returns the name and, when it was generated, the password.
 */
export async function addUser(site: Site, input: NewUser): Promise<{ name: string; generatedPassword: string | undefined }> {
  const password = input.password ?? generatePassword();
  const email = input.email.trim();
  const roles = [...new Set(input.roles ?? [])];
  const doc = await site.write(OPERATOR, async (ctx) => {
    await checkRoles(ctx, roles);
    return site.documents.insert(ctx, 'User', {
      email,
      first_name: input.firstName?.trim() || email.split('@')[0],
      new_password: password,
      roles: roles.map((role) => ({ role })),
    });
  });
  return { name: String(doc.name), generatedPassword: input.password === undefined ? password : undefined };
}

/** Sets a user's password; every session of theirs ends. Returns the user's name. */
export async function changePassword(site: Site, nameOrEmail: string, password: string): Promise<string> {
  return site.write(OPERATOR, async (ctx) => {
    const name = await findUserName(ctx, nameOrEmail);
    await site.documents.update(ctx, 'User', name, { new_password: password });
    return name;
  });
}

/** A new API secret for a user (keeping their key); the previous secret stops working. */
export async function generateUserKeys(site: Site, nameOrEmail: string): Promise<ApiCredentials & { user: string }> {
  return site.write(OPERATOR, async (ctx) => {
    const name = await findUserName(ctx, nameOrEmail);
    return { user: name, ...(await issueApiKeys(ctx.q, ctx.dialect, name)) };
  });
}

/**
 * Enables or disables a user. Disabling ends their sessions and refuses their API keys until they
 * are enabled again; Administrator and Guest cannot be disabled. Returns the user's name.
 */
export async function setUserEnabled(site: Site, nameOrEmail: string, enabled: boolean): Promise<string> {
  return site.write(OPERATOR, async (ctx) => {
    const name = await findUserName(ctx, nameOrEmail);
    await site.documents.update(ctx, 'User', name, { enabled: enabled ? 1 : 0 });
    return name;
  });
}
