import { ADMINISTRATOR_USER, GUEST_USER } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { readSingleRows } from '../documents/singles/single-rows.js';
import { AuthenticationError, PermissionError } from '../errors/index.js';
import { SYSTEM_SETTINGS } from '../settings/settings.js';
import type { Row } from '../storage/database.js';
import { USER_SOCIAL_LOGIN } from './doctypes/index.js';
import type { ProviderIdentity } from './provider-client.js';
import type { SocialLoginKey } from './social-login-key-row.js';

/** Users no provider account can become: the built-in ones. */
const BUILT_IN_USERS: ReadonlySet<string> = new Set([ADMINISTRATOR_USER, GUEST_USER]);

function refused(message: string): AuthenticationError {
  return new AuthenticationError(message, { details: { responseMessage: message } });
}

/** The one refusal for a disabled account, whichever way it was found (as password login words it). */
const DISABLED = 'User disabled or missing';

/** The link row's name: one (provider, subject) pair is one row, so a second link is a clash, not a duplicate. */
export function linkName(provider: string, subject: string): string {
  return `${provider}:${subject}`.slice(0, 140);
}

async function linkedUser(ctx: DocContext, key: SocialLoginKey, subject: string): Promise<string | undefined> {
  const rows = await ctx.q.all<Row>(
    ctx.dialect.builder
      .selectFrom(`tab${USER_SOCIAL_LOGIN}`)
      .select(['user'])
      .where('provider', '=', key.name)
      .where('userid', '=', subject)
      .limit(1)
      .compile(),
  );
  return rows[0] ? String(rows[0].user) : undefined;
}

async function userByEmail(ctx: DocContext, email: string): Promise<Row | undefined> {
  const rows = await ctx.q.all<Row>(
    ctx.dialect.builder
      .selectFrom('tabUser')
      .select(['name', 'enabled'])
      .where((eb) => eb.or([eb('email', '=', email), eb('name', '=', email)]))
      .limit(2)
      .compile(),
  );
  return rows.length === 1 ? rows[0] : undefined;
}

async function isEnabled(ctx: DocContext, user: string): Promise<boolean> {
  const rows = await ctx.q.all<Row>(ctx.dialect.builder.selectFrom('tabUser').select(['enabled']).where('name', '=', user).compile());
  return rows[0] !== undefined && Number(rows[0].enabled) === 1;
}

/** Whether this provider may make new accounts: the key's `sign_ups`, else System Settings `disable_signup`. */
async function signUpsAllowed(ctx: DocContext, key: SocialLoginKey): Promise<{ allowed: boolean; role: string | undefined }> {
  const settings = await readSingleRows(ctx.q, ctx.dialect, SYSTEM_SETTINGS);
  const role = settings.get('signup_default_role') || undefined;
  if (key.signUps === 'Allow') return { allowed: true, role };
  if (key.signUps === 'Deny') return { allowed: false, role };
  return { allowed: settings.get('disable_signup') === '0', role };
}

/**
 * The user a provider's account signs in as (docs/identity.md "Single sign-on"), in one write unit
 * run as the Administrator: by its (provider, subject) link first; else by email, only when the
 * provider says the address is verified, recording the link; else a new Website User where sign-ups
 * are allowed. An unverified address is never matched nor used for a new account, and is refused
 * with the same words whether or not an account has it, so the refusal names no account.
 */
export async function identifyUser(ctx: DocContext, documents: DocumentService, key: SocialLoginKey, identity: ProviderIdentity): Promise<string> {
  const linked = await linkedUser(ctx, key, identity.subject);
  if (linked !== undefined) {
    if (!(await isEnabled(ctx, linked))) throw refused(DISABLED);
    return linked;
  }
  if (identity.email === undefined) throw refused(`${key.name} gave no email address for this account, so it cannot be matched to a user`);
  if (!identity.emailVerified) {
    throw refused(`${key.name} has not verified the email address of this account; verify it there, then sign in again`);
  }
  const existing = await userByEmail(ctx, identity.email);
  let user: string;
  if (existing) {
    user = String(existing.name);
    if (BUILT_IN_USERS.has(user)) throw new PermissionError('The built-in users cannot sign in with a social login');
    if (Number(existing.enabled) !== 1) throw refused(DISABLED);
  } else {
    const { allowed, role } = await signUpsAllowed(ctx, key);
    if (!allowed) throw new PermissionError('Sign Up is disabled');
    const created = await documents.insert(
      ctx,
      'User',
      {
        email: identity.email,
        first_name: identity.firstName ?? identity.email.split('@')[0],
        last_name: identity.lastName ?? null,
        user_type: 'Website User',
        enabled: 1,
        send_welcome_email: 0,
        roles: role ? [{ role }] : [],
      },
      { ignorePermissions: true },
    );
    user = String(created.name);
  }
  await documents.insert(
    ctx,
    USER_SOCIAL_LOGIN,
    { name: linkName(key.name, identity.subject), user, provider: key.name, userid: identity.subject, username: identity.username ?? null },
    { ignorePermissions: true },
  );
  return user;
}
