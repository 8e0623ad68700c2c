import { ADMINISTRATOR_USER, BUILT_IN_USERS, loadPrincipal } from '../auth/principal.js';
import { findLoginUser } from '../auth/user-names.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import { readSingleRows } from '../documents/singles/single-rows.js';
import { FrappeTypeError, PermissionError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { Row } from '../storage/database.js';
import { SYSTEM_SETTINGS } from '../settings/settings.js';
import { isEmailAddress } from './mail-addresses.js';
import { limit, USER_METHODS, type ResetDeps } from './password-reset.js';
import { queueMail } from './queue-mail.js';
import { newResetKey, storeResetKey } from './reset-keys.js';
import { hasOutgoingMail } from './smtp-settings.js';

/** A welcome link lives three days: longer than a reset link, since the invitee may not be waiting for it. */
export const WELCOME_LINK_LIFETIME_S = 3 * 24 * 3600;

/** sign_up's one answer, for a new address and an existing one alike (docs/api.md). */
export const SIGN_UP_ANSWER = [1, 'Please check your email for verification'] as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function queueLinkMail(
  deps: ResetDeps,
  ctx: DocContext,
  user: { name: string; email: string },
  subject: string,
  intro: string,
  lifetimeS?: number,
): Promise<void> {
  const { key, hash } = newResetKey();
  await storeResetKey(ctx.q, ctx.dialect, user.name, hash, deps.now(), lifetimeS);
  const link = `${deps.baseUrl}/update-password?key=${key}`;
  await queueMail(deps, ctx, {
    recipients: [user.email],
    cc: [],
    bcc: [],
    subject,
    message: `<p>${intro}</p><p><a href="${link}">${link}</a></p><p>The link works once.</p>`,
    headers: {},
    priority: 5,
    attachments: [],
    referenceDoctype: 'User',
    referenceName: user.name,
  });
}

/**
 * Invitations and sign-up (docs/mail.md "Invitations", "Sign-up"): a User created with
 * `send_welcome_email` gets a set-password link; `sign_up` creates a Website User with only the
 * role System Settings names, and answers an existing address exactly like a new one (its owner is
 * mailed a reset link instead).
 */
export function registerInvitations(hooks: HookRegistry, methods: MethodRegistry, deps: ResetDeps): void {
  hooks.on('User', 'after_insert', async ({ doc, ctx }, next) => {
    const name = String(doc.name);
    if (
      Number(doc.send_welcome_email) === 1 &&
      Number(doc.enabled ?? 1) === 1 &&
      !BUILT_IN_USERS.has(name) &&
      typeof doc.email === 'string' &&
      isEmailAddress(doc.email)
    ) {
      const who = escapeHtml(String(doc.first_name ?? doc.full_name ?? name));
      // Without outgoing mail the user is still made (docs/mail.md "Invitations"): the form ticks the box by default.
      if (!(await hasOutgoingMail({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, encryptionKey: deps.encryptionKey, config: deps.config }))) {
        ctx.messages.add(
          `No welcome mail was sent to ${doc.email}: outgoing mail is not set up. Set a password for the user, or send a reset link once mail works.`,
        );
        await next();
        return;
      }
      await queueLinkMail(
        deps,
        ctx,
        { name, email: doc.email },
        `Welcome to ${deps.domain}`,
        `Dear ${who}, an account was made for you. Open this link to set your password and sign in:`,
        WELCOME_LINK_LIFETIME_S,
      );
    }
    await next();
  });

  methods.register(
    `${USER_METHODS}.sign_up`,
    async (call: MethodCall) => {
      const { args, services, http } = call;
      const email = typeof args.email === 'string' ? args.email.trim().toLowerCase() : '';
      const fullName = typeof args.full_name === 'string' ? args.full_name.trim().slice(0, 140) : '';
      if (!isEmailAddress(email)) throw new ValidationError('Please enter a valid email address');
      if (fullName === '') throw new FrappeTypeError('full_name is required');
      const settings = await services.transaction((q) => readSingleRows(q, call.ctx.dialect, SYSTEM_SETTINGS));
      if (settings.get('disable_signup') !== '0') throw new PermissionError('Sign Up is disabled');
      await limit(call, `signup-ip:${http.ip || 'unknown'}`, { maxFailures: 10, windowSeconds: 3600 });
      await limit(call, 'signup-all', { maxFailures: 300, windowSeconds: 3600 });
      await limit(call, `reset-user:${email}`, { maxFailures: 5, windowSeconds: 600 });
      const admin = await services.transaction((q) => loadPrincipal(q, call.ctx.dialect, ADMINISTRATOR_USER));
      await services.write(admin!, async (ctx) => {
        const existing = await findLoginUser(ctx, email);
        if (existing !== undefined) {
          const [row] = await ctx.q.all<Row>(
            ctx.dialect.builder.selectFrom('tabUser').select(['name', 'email', 'enabled']).where('name', '=', existing).compile(),
          );
          if (row && Number(row.enabled) === 1 && row.email && !BUILT_IN_USERS.has(existing)) {
            await queueLinkMail(
              deps,
              ctx,
              { name: existing, email: String(row.email) },
              'Your account',
              'Someone (hopefully you) tried to sign up with this address, which already has an account. To sign in, reset your password here:',
            );
          }
          return;
        }
        const role = settings.get('signup_default_role');
        const [first, ...rest] = fullName.split(/\s+/);
        await deps.documents.insert(ctx, 'User', {
          email,
          first_name: first,
          last_name: rest.join(' ') || null,
          user_type: 'Website User',
          enabled: 1,
          send_welcome_email: 1,
          roles: role ? [{ role }] : [],
        });
      });
      return [...SIGN_UP_ANSWER];
    },
    {
      allowGuest: true,
      methods: ['POST'],
      ownTransactions: true,
      params: [
        { name: 'email', type: 'any', required: true },
        { name: 'full_name', type: 'any', required: true },
        { name: 'redirect_to', type: 'string' },
      ],
    },
  );
}
