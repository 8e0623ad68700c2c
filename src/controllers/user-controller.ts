import { checkNewPassword, type PasswordPolicy } from '../auth/password-policy.js';
import { checkUserPassword, MAX_PASSWORD_LENGTH, setUserPassword } from '../auth/passwords.js';
import { ADMINISTRATOR_USER, BUILT_IN_USERS, GUEST_USER } from '../auth/principal.js';
import { SessionStore } from '../auth/sessions.js';
import type { Doc } from '../meta/doctype.js';
import type { HookRegistry } from '../documents/hooks.js';
import { AuthenticationError, DuplicateEntryError, MandatoryError, PermissionError, ValidationError } from '../errors/index.js';
import type { DocContext } from '../documents/doc-context.js';
import { userNameClash } from '../auth/user-names.js';

/** A Password value of only asterisks is the mask coming back from a client, not a new password. */
const MASK = /^\*+$/;

/** The password the save sets, if it sets one. */
function newPassword(doc: Doc): string | undefined {
  const value = doc.new_password;
  return typeof value === 'string' && value !== '' && !MASK.test(value) ? value : undefined;
}

/**
 * A user changing their own password from a login session must give the current one in
 * `old_password`, as the reference's `update_password` asks: whoever borrows an open session (a
 * page left open, a forged request) cannot lock its owner out (docs/security.md). A System
 * Manager setting another user's password, an API key (it outlives the password anyway) and the
 * operator's `fw` commands do not need it.
 */
async function checkOldPassword(doc: Doc, ctx: DocContext): Promise<void> {
  if (ctx.sid === undefined || ctx.principal.user !== doc.name) return;
  const old = typeof doc.old_password === 'string' ? doc.old_password : '';
  if (old === '' || MASK.test(old)) {
    throw new MandatoryError('Enter your current password in old_password to set a new one', { doctype: 'User' });
  }
  if (!(await checkUserPassword(ctx.q, ctx.dialect, String(doc.name), old))) {
    throw new AuthenticationError('Incorrect current password (old_password)');
  }
}

/** The site's password policy as the check wants it; off when the context carries none. */
function passwordPolicy(ctx: DocContext): PasswordPolicy | undefined {
  const settings = ctx.settings.passwordPolicy;
  return settings && { enabled: settings.enable_password_policy, minimumScore: settings.minimum_password_score };
}

/** What a guesser knows of the user: a password made of them is weak, whatever its length. */
function userInputs(doc: Doc): string[] {
  const inputs = [doc.name, doc.email, doc.first_name, doc.middle_name, doc.last_name, doc.full_name];
  const words = inputs.filter((v): v is string => typeof v === 'string' && v !== '');
  // The parts of an email count on their own too (john.doe@example.com: john, doe, example).
  for (const email of [doc.email, doc.name]) if (typeof email === 'string') words.push(...email.split(/[@._+-]+/).filter((w) => w.length > 2));
  return words;
}

/** The role names a User document's `roles` table holds. */
function rolesOf(doc: Doc | undefined): Set<string> {
  const rows = doc && Array.isArray(doc.roles) ? (doc.roles as Doc[]) : [];
  return new Set(rows.map((r) => String(r.role ?? '')));
}

/**
 * Only the Administrator gives anyone the role Administrator: a System Manager holds every other
 * role already, and this one is what DocTypes name for their Administrator-only rights
 * (docs/security.md, "The Administrator"). A user keeps the role they were given before.
 */
function checkAdministratorRole(doc: Doc, before: Doc | undefined, ctx: DocContext): void {
  if (ctx.principal.isAdministrator || !rolesOf(doc).has(ADMINISTRATOR_USER) || rolesOf(before).has(ADMINISTRATOR_USER)) return;
  throw new PermissionError(`Only the Administrator may give the role ${ADMINISTRATOR_USER} to a user`, { doctype: 'User' });
}

function normaliseEmail(doc: Doc): void {
  if (typeof doc.email === 'string') doc.email = doc.email.trim().toLowerCase();
}

/**
 * The User DocType's own behaviour: the name is the lower-cased email, full_name follows the name
 * parts, `new_password` is hashed into __Auth and never stored on the document, and the user's
 * sessions end when the password changes (except the session making the change) or the user is
 * disabled. Administrator and Guest can be neither deleted nor disabled, and only the
 * Administrator reads or changes them (reference: `user.has_permission`), so a System Manager
 * cannot take over the one account above every permission.
 */
export function registerUserController(hooks: HookRegistry): void {
  hooks.permissions.onHasPermission('User', ({ doc, principal }) => (principal.isAdministrator || !BUILT_IN_USERS.has(String(doc.name)) ? undefined : false));
  hooks.permissions.onQueryConditions('User', ({ principal }) =>
    principal.isAdministrator ? undefined : { field: { field: 'name' }, op: 'not in', value: [...BUILT_IN_USERS] },
  );

  // Naming runs between before_insert and before_validate, so the email is normalised first.
  hooks.on('User', 'before_insert', async ({ doc }, next) => {
    normaliseEmail(doc);
    await next();
  });

  hooks.on('User', 'before_validate', async ({ doc, before }, next) => {
    normaliseEmail(doc);
    // The name is the email whatever the client sent as `name` (v2 keeps client names otherwise).
    if (before === undefined && typeof doc.email === 'string' && doc.email !== '') doc.name = doc.email;
    const parts = [doc.first_name, doc.middle_name, doc.last_name].filter((p) => typeof p === 'string' && p.trim() !== '');
    doc.full_name = parts.length > 0 ? parts.join(' ') : null;
    await next();
  });

  hooks.on('User', 'validate', async ({ doc, before, ctx }, next) => {
    if (before === undefined) {
      // An exact duplicate is the primary key's 409; this one catches the same name in another case.
      const clash = await userNameClash(ctx, String(doc.name));
      if (clash !== undefined && clash !== doc.name) {
        throw new DuplicateEntryError(`User ${String(doc.name)} would be confused with User ${clash}: names are unique without regard to case`, {
          doctype: 'User',
        });
      }
    }
    const password = newPassword(doc);
    // Refused here, before before_save hashes it, so an oversize value costs no hashing time.
    if (password !== undefined && password.length > MAX_PASSWORD_LENGTH && [...password].length > MAX_PASSWORD_LENGTH) {
      throw new ValidationError(`Password size exceeded the maximum allowed size (${MAX_PASSWORD_LENGTH} characters)`);
    }
    if (password !== undefined && doc.name === GUEST_USER) {
      throw new ValidationError('Guest stands for requests without a login and cannot have a password');
    }
    if (password !== undefined && before !== undefined) await checkOldPassword(doc, ctx);
    // Length always; strength when the site's policy is on (docs/security.md "Passwords").
    if (password !== undefined) await checkNewPassword(password, passwordPolicy(ctx), userInputs(doc));
    checkAdministratorRole(doc, before, ctx);
    if (BUILT_IN_USERS.has(String(doc.name)) && Number(doc.enabled) !== 1) {
      throw new ValidationError(`User ${String(doc.name)} is built in and cannot be disabled`);
    }
    await next();
  });

  hooks.on('User', 'before_save', async ({ doc, before, ctx }, next) => {
    const name = String(doc.name);
    const password = newPassword(doc);
    if (password !== undefined) await setUserPassword(ctx.q, ctx.dialect, name, password);
    doc.new_password = null;
    doc.old_password = null;
    if (before !== undefined) {
      const sessions = new SessionStore(ctx.dialect);
      if (Number(before.enabled) === 1 && Number(doc.enabled) !== 1) {
        await sessions.destroyAllForUser(ctx.q, name);
      } else if (password !== undefined) {
        // Someone who learnt the old password loses access; whoever changed it keeps working.
        await sessions.destroyAllForUser(ctx.q, name, ctx.sid !== undefined ? { except: ctx.sid } : {});
      }
    }
    await next();
  });

  hooks.on('User', 'on_trash', async ({ doc }, next) => {
    if (BUILT_IN_USERS.has(String(doc.name))) {
      throw new ValidationError(`User ${String(doc.name)} is built in and cannot be deleted`);
    }
    await next();
  });

  hooks.on('User', 'after_delete', async ({ doc, ctx }, next) => {
    await new SessionStore(ctx.dialect).destroyAllForUser(ctx.q, String(doc.name));
    // Shares follow a user name, not a person: a user created later under the same name must not
    // find this one's shares waiting (docs/security.md).
    await ctx.q.run(ctx.dialect.builder.deleteFrom('tabDocShare').where('user', '=', String(doc.name)).compile());
    await next();
  });
}
