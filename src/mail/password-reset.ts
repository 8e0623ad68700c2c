import { LoginThrottle } from '../auth/login-throttle.js';
import { checkUserPassword } from '../auth/passwords.js';
import { ADMINISTRATOR_USER, GUEST_USER, loadPrincipal } from '../auth/principal.js';
import { findLoginUser } from '../auth/user-names.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import { readSingleRows } from '../documents/singles/single-rows.js';
import { AuthenticationError, FrappeTypeError, FwError, PermissionError, SecurityException, TooManyRequestsError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { SYSTEM_SETTINGS } from '../settings/settings.js';
import { composeMessage } from './compose-message.js';
import { queueMail, type QueueDeps } from './queue-mail.js';
import { clearResetKey, findResetKey, hashKey, newResetKey, storeResetKey } from './reset-keys.js';
import { defaultSender } from './smtp-settings.js';

/** The reference's user methods (docs/mail.md "Password reset"). */
export const USER_METHODS = 'fw.core.doctype.user.user';

/** The one answer of reset_password, whether or not the address has an account (docs/api.md). */
export const RESET_ANSWER = 'If an account with this email exists, password reset instructions have been sent.';

/** An unknown, used or expired reset key: 410, as the reference answers. */
export class ResetLinkGone extends FwError {
  static override readonly excType: string = 'LinkExpired';
  static override readonly status: number = 410;
}

/** What the reset flow needs. */
export interface ResetDeps extends QueueDeps {
  /** The site's public origin, for the link. */
  readonly baseUrl: string;
  /** Epoch ms: the job queue's clock (tests move it). */
  readonly now: () => number;
}

const DEFAULT_EXPIRY_S = 1200;
const DEFAULT_IP_LIMIT = 3;
/** Requests per account: five per ten minutes, so nobody can flood an inbox. */
const ACCOUNT_LIMIT = { maxFailures: 5, windowSeconds: 600 };

export async function resetSettings(q: Queryable, dialect: Dialect): Promise<{ expiryS: number; ipLimit: number }> {
  const rows = await readSingleRows(q, dialect, SYSTEM_SETTINGS);
  const whole = (key: string, fallback: number) => {
    const text = rows.get(key);
    const n = Number(text);
    return text != null && text !== '' && Number.isInteger(n) && n > 0 ? n : fallback;
  };
  return { expiryS: whole('reset_password_link_expiry_duration', DEFAULT_EXPIRY_S), ipLimit: whole('password_reset_limit', DEFAULT_IP_LIMIT) };
}

/** Counts one request against `key`; over the limit is 429 TooManyRequestsError. */
export async function limit(call: MethodCall, key: string, rule: { maxFailures: number; windowSeconds: number }): Promise<void> {
  const throttle = new LoginThrottle({ transaction: call.services.transaction, dialect: call.ctx.dialect }, rule);
  try {
    await throttle.begin([key]);
  } catch (err) {
    if (err instanceof SecurityException) throw new TooManyRequestsError('Too many password reset requests. Please try again later.');
    throw err;
  }
}

function resetMail(link: string, minutes: number, fullName: string): { subject: string; html: string } {
  const escaped = fullName.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    subject: 'Password Reset',
    html: `<p>Dear ${escaped},</p><p>Someone (hopefully you) asked to reset the password of your account. Open this link to choose a new password:</p><p><a href="${link}">${link}</a></p><p>The link works once, for ${minutes} minutes. If you did not ask for it, ignore this mail: your password stays as it is.</p>`,
  };
}

/**
 * reset_password and update_password (docs/mail.md "Password reset"), and the hook that voids a
 * reset key whenever the user's password changes in any other way.
 */
export function registerPasswordReset(hooks: HookRegistry, methods: MethodRegistry, deps: ResetDeps): void {
  hooks.on('User', 'validate', async ({ doc, before, ctx }, next) => {
    const value = doc.new_password;
    if (before !== undefined && typeof value === 'string' && value !== '' && !/^\*+$/.test(value)) await clearResetKey(ctx.q, ctx.dialect, String(doc.name));
    await next();
  });

  methods.register(
    `${USER_METHODS}.reset_password`,
    async (call: MethodCall) => {
      const { args, http, services } = call;
      if (typeof args.user !== 'string') throw new FrappeTypeError('user must be an email address or user name');
      const asked = args.user.trim().toLowerCase().slice(0, 254);
      await limit(call, `reset-ip:${http.ip || 'unknown'}`, {
        maxFailures: await services.transaction((q) => resetSettings(q, call.ctx.dialect)).then((s) => s.ipLimit),
        windowSeconds: 3600,
      });
      // Counted by what was typed, known or not: the limit itself says nothing about existence.
      await limit(call, `reset-user:${asked}`, ACCOUNT_LIMIT);
      const { key, hash } = newResetKey();
      await services.write(call.ctx.principal, async (ctx) => {
        const { expiryS } = await resetSettings(ctx.q, ctx.dialect);
        const user = asked === '' ? undefined : await eligibleUser(ctx, asked);
        const link = `${deps.baseUrl}/update-password?key=${key}`;
        const mail = resetMail(link, Math.round(expiryS / 60), user?.fullName ?? asked);
        if (user) {
          await storeResetKey(ctx.q, ctx.dialect, user.name, hash, deps.now());
          await queueMail(deps, ctx, {
            recipients: [user.email],
            cc: [],
            bcc: [],
            subject: mail.subject,
            message: mail.html,
            headers: {},
            priority: 5,
            attachments: [],
            referenceDoctype: 'User',
            referenceName: user.name,
          });
        } else {
          // The same work without a row: the message is built all the same, so timing tells little.
          const from = await defaultSender({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, encryptionKey: deps.encryptionKey, config: deps.config });
          await composeMessage({
            from,
            to: [asked.includes('@') ? asked : 'nobody@localhost'],
            cc: [],
            subject: mail.subject,
            html: mail.html,
            headers: {},
            attachments: [],
            domain: deps.domain,
          });
        }
      });
      return RESET_ANSWER;
    },
    { allowGuest: true, methods: ['POST'], ownTransactions: true, params: [{ name: 'user', type: 'any', required: true }] },
  );

  methods.register(
    `${USER_METHODS}.update_password`,
    async (call: MethodCall) => {
      const { args, http, services, ctx } = call;
      if (typeof args.new_password !== 'string' || args.new_password === '') throw new FrappeTypeError('new_password must be text');
      const newPassword = args.new_password;
      let userName: string;
      if (typeof args.key === 'string' && args.key !== '') {
        const hash = hashKey(args.key);
        userName = await services
          .write(await adminPrincipal(services, ctx), async (w) => {
            const found = await findResetKey(w.q, w.dialect, hash);
            if (!found) throw new ResetLinkGone('The reset password link has either been used before or is invalid');
            const { expiryS } = await resetSettings(w.q, w.dialect);
            if (deps.now() - found.createdMs > (found.lifetimeS ?? expiryS) * 1000) {
              await clearResetKey(w.q, w.dialect, found.user);
              return undefined;
            }
            const principal = await loadPrincipal(w.q, w.dialect, found.user);
            if (!principal) throw new ResetLinkGone('The reset password link has either been used before or is invalid');
            // The password policy and the end of every session come with the User save (user-controller.ts).
            await deps.documents.update(w, 'User', found.user, { new_password: newPassword });
            await clearResetKey(w.q, w.dialect, found.user);
            return found.user;
          })
          .then((user) => {
            if (user === undefined) throw new ResetLinkGone('The reset password link has been expired');
            return user;
          });
      } else {
        if (ctx.principal.user === GUEST_USER) throw new PermissionError('Log in, or open the link of a password reset mail, to set a new password');
        const old = typeof args.old_password === 'string' ? args.old_password : '';
        if (!(await services.transaction((q) => checkUserPassword(q, ctx.dialect, ctx.principal.user, old))))
          throw new AuthenticationError('Incorrect current password (old_password)');
        userName = ctx.principal.user;
        await services.write(ctx.principal, (w) => deps.documents.update(w, 'User', userName, { new_password: newPassword, old_password: old }), {
          sid: http.sid,
        });
        if (http.sid) return homePage(await services.transaction((q) => loadPrincipal(q, ctx.dialect, userName)));
      }
      // Logged in: a new session for the user, as the reference's update_password does.
      const settings = await services.settings();
      const { sid, principal, fullName } = await services.transaction(async (q) => {
        const principal = await loadPrincipal(q, ctx.dialect, userName);
        const [row] = await q.all<Row>(ctx.dialect.builder.selectFrom('tabUser').select(['full_name']).where('name', '=', userName).compile());
        const session = await services.sessions.create(q, { user: userName, ip: http.ip, userAgent: http.userAgent, expirySeconds: settings.session_expiry });
        return { sid: session.sid, principal, fullName: String(row?.full_name ?? userName) };
      });
      http.setCookie('sid', sid, { httpOnly: true, maxAge: settings.session_expiry });
      http.setCookie('user_id', userName, {});
      http.setCookie('full_name', fullName, {});
      http.setCookie('system_user', principal?.userType === 'System User' ? 'yes' : 'no', {});
      return homePage(principal);
    },
    {
      allowGuest: true,
      methods: ['POST'],
      ownTransactions: true,
      params: [
        { name: 'new_password', type: 'any', required: true },
        { name: 'key', type: 'string' },
        { name: 'old_password', type: 'string' },
        { name: 'logout_all_sessions', type: 'any' },
      ],
    },
  );
}

function homePage(principal: { userType: string } | undefined): string {
  return principal?.userType === 'System User' ? '/app' : '/me';
}

async function adminPrincipal(services: MethodCall['services'], ctx: DocContext) {
  const principal = await services.transaction((q) => loadPrincipal(q, ctx.dialect, ADMINISTRATOR_USER));
  if (!principal) throw new Error('The Administrator is missing');
  return principal;
}

/** The enabled, mail-reachable user an address or name names; never the built-in users. */
async function eligibleUser(ctx: DocContext, asked: string): Promise<{ name: string; email: string; fullName: string } | undefined> {
  const name = await findLoginUser(ctx, asked);
  if (name === undefined || name === ADMINISTRATOR_USER || name === GUEST_USER) return undefined;
  const [row] = await ctx.q.all<Row>(
    ctx.dialect.builder.selectFrom('tabUser').select(['name', 'email', 'enabled', 'full_name']).where('name', '=', name).compile(),
  );
  if (!row || Number(row.enabled) !== 1 || !row.email) return undefined;
  return { name: String(row.name), email: String(row.email), fullName: String(row.full_name ?? row.name) };
}
