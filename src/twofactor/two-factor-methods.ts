import { LoginThrottle } from '../auth/login-throttle.js';
import { ADMINISTRATOR_USER, BUILT_IN_USERS, loadPrincipal } from '../auth/principal.js';
import { DoesNotExistError, PermissionError, SecurityException, TooManyRequestsError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { Queryable } from '../storage/database.js';
import { confirmSecret, findQrKey, readAuthenticator, removeAuthenticator, savePendingSecret, spendStep } from './authenticator-store.js';
import { countRecoveryCodes, issueRecoveryCodes, spendRecoveryCode } from './recovery-codes.js';
import { matchingStep, newTotpSecret, otpauthUri } from './totp.js';
import { accountMail, twoFactorMails, type MailQueue } from './two-factor-mail.js';
import { readTwoFactorSettings, roleRequiresTwoFactor } from './two-factor-settings.js';

/** What the methods need (see GateDeps). */
export interface MethodDeps {
  readonly mail: MailQueue;
  readonly encryptionKey: string;
  readonly now: () => number;
}

const PREFIX = 'fw.twofactor';
/** Codes a signed-in user may try at confirm and disable: five per five minutes, cleared by a right one. */
const CODE_LIMIT = { maxFailures: 5, windowSeconds: 300 };
/** Opens of a mailed QR link per client address: ten per ten minutes. */
const QR_LIMIT = { maxFailures: 10, windowSeconds: 600 };
const WRONG_CODE = 'Incorrect Verification code';
const NOT_ENABLED = 'You have to enable Two Factor Auth from System Settings.';

/** Counts one attempt under `key` (own transaction); over the limit is 429. Answers the throttle, to clear it after a success. */
async function limit(call: MethodCall, key: string, rule: { maxFailures: number; windowSeconds: number }, message: string): Promise<LoginThrottle> {
  const throttle = new LoginThrottle({ transaction: call.services.transaction, dialect: call.ctx.dialect }, rule);
  try {
    await throttle.begin([key]);
  } catch (err) {
    if (err instanceof SecurityException) throw new TooManyRequestsError(message);
    throw err;
  }
  return throttle;
}

function codeOf(args: MethodCall['args']): string {
  const otp = args.otp;
  if (typeof otp !== 'string' && typeof otp !== 'number') throw new ValidationError('otp: the code from your authenticator app, or a recovery code');
  return String(otp).trim();
}

/** A stored authenticator as the code-taking methods see it. */
type Authenticator = Awaited<ReturnType<typeof readAuthenticator>>;

/**
 * Runs `work` for the signed-in caller in a transaction of its own, with their `otp` counted against
 * the code limit (429 beyond it) and the count cleared when `work` accepts the code. `work` answers
 * `undefined` for a wrong code, which is refused with nothing changed.
 */
async function withCallerCode<T>(
  call: MethodCall,
  encryptionKey: string,
  work: (q: Queryable, auth: Authenticator, user: string, code: string) => Promise<T | undefined>,
): Promise<T> {
  const { ctx, services } = call;
  const user = ctx.principal.user;
  const code = codeOf(call.args);
  const key = `2fa-code:${user}`;
  const throttle = await limit(call, key, CODE_LIMIT, 'Too many verification codes. Please try again later.');
  const result = await services.transaction(async (q) => {
    const answer = await work(q, await readAuthenticator(q, ctx.dialect, user, encryptionKey), user, code);
    if (answer !== undefined) await throttle.reset(q, [key]);
    return answer;
  });
  if (result === undefined) throw new ValidationError(WRONG_CODE);
  return result;
}

/** A TOTP image of `uri` as SVG text; qrcode is imported by the first (docs/benchmarks.md "Modules loaded on first use"). */
async function qrSvg(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
}

/**
 * The signed-in user's two-factor methods (docs/identity.md "Two-factor login"): status, setup,
 * confirm, disable, reset_otp_secret, and the guest page behind a mailed QR link. Every `fw.` path
 * also answers under `frappe.`.
 */
export function registerTwoFactorMethods(methods: MethodRegistry, deps: MethodDeps): void {
  methods.register(
    `${PREFIX}.status`,
    async ({ ctx }) => {
      const user = ctx.principal.user;
      const settings = await readTwoFactorSettings(ctx.q, ctx.dialect);
      const auth = await readAuthenticator(ctx.q, ctx.dialect, user, deps.encryptionKey);
      return {
        enabled_on_site: settings.enabled,
        method: settings.method,
        required_by_role: await roleRequiresTwoFactor(ctx.q, ctx.dialect, ctx.principal),
        set_up: auth.secret !== undefined,
        recovery_codes_left: await countRecoveryCodes(ctx.q, ctx.dialect, user),
      };
    },
    {
      methods: ['GET', 'POST'],
      description: "The caller's two-factor login: whether the site and a role ask for it, whether it is set up, recovery codes left.",
    },
  );

  methods.register(
    `${PREFIX}.setup`,
    async ({ ctx }) => {
      const user = ctx.principal.user;
      const settings = await readTwoFactorSettings(ctx.q, ctx.dialect);
      if (!settings.enabled) throw new ValidationError(NOT_ENABLED);
      const auth = await readAuthenticator(ctx.q, ctx.dialect, user, deps.encryptionKey);
      if (auth.secret !== undefined)
        throw new ValidationError('Two-factor login is already set up: disable it first (with a code), or ask a System Manager to reset it');
      const secret = newTotpSecret();
      await savePendingSecret(ctx.q, ctx.dialect, user, secret, deps.encryptionKey);
      const uri = otpauthUri(secret, user, settings.issuer);
      return { secret, otpauth_uri: uri, qr_svg: await qrSvg(uri) };
    },
    {
      methods: ['POST'],
      description: 'Starts setting up an authenticator app: a new secret (not in force until confirm), its otpauth:// URI and a QR code as SVG.',
    },
  );

  methods.register(
    `${PREFIX}.confirm`,
    async (call) => ({
      recovery_codes: await withCallerCode(call, deps.encryptionKey, async (q, auth, user, code) => {
        if (auth.pending === undefined) throw new ValidationError(`Nothing to confirm: call ${PREFIX}.setup first`);
        const step = matchingStep(auth.pending, code, deps.now());
        if (step === undefined || !(await spendStep(q, call.ctx.dialect, user, step))) return undefined;
        await confirmSecret(q, call.ctx.dialect, user, auth.pending, deps.encryptionKey);
        return issueRecoveryCodes(q, call.ctx.dialect, user);
      }),
    }),
    {
      methods: ['POST'],
      ownTransactions: true,
      params: [{ name: 'otp', type: 'any', required: true }],
      description: 'Turns two-factor login on with a code of the new secret; answers ten recovery codes, shown this once.',
    },
  );

  methods.register(
    `${PREFIX}.disable`,
    async (call) => {
      await withCallerCode(call, deps.encryptionKey, async (q, auth, user, code) => {
        if (auth.secret === undefined) throw new ValidationError('Two-factor login is not set up for this account');
        if (!(await spendCode(q, call.ctx, user, auth.secret, code))) return undefined;
        await removeAuthenticator(q, call.ctx.dialect, user);
        return true;
      });
      return 'Two-factor login is off for this account.';
    },
    {
      methods: ['POST'],
      ownTransactions: true,
      params: [{ name: 'otp', type: 'any', required: true }],
      description: "Turns the caller's two-factor login off; needs a current code or a recovery code.",
    },
  );

  methods.register(
    `${PREFIX}.regenerate_recovery_codes`,
    async (call) => ({
      recovery_codes: await withCallerCode(call, deps.encryptionKey, async (q, auth, user, code) => {
        if (auth.secret === undefined) throw new ValidationError('Two-factor login is not set up for this account');
        const step = matchingStep(auth.secret, code, deps.now());
        if (step === undefined || !(await spendStep(q, call.ctx.dialect, user, step))) return undefined;
        return issueRecoveryCodes(q, call.ctx.dialect, user);
      }),
    }),
    {
      methods: ['POST'],
      ownTransactions: true,
      params: [{ name: 'otp', type: 'any', required: true }],
      description: 'Replaces the recovery codes with ten new ones (shown this once); needs a current code from the authenticator app.',
    },
  );

  methods.register(
    `${PREFIX}.reset_otp_secret`,
    async (call) => {
      const { ctx, services, args } = call;
      const caller = ctx.principal;
      const target = String(args.user).trim();
      if (target !== caller.user) {
        if (!caller.roles.has('System Manager')) throw new PermissionError(`Only System Managers may reset another user's two-factor login`);
        // The Administrator (and Guest) are reached by the Administrator alone (docs/security.md "The Administrator").
        if (BUILT_IN_USERS.has(target) && !caller.isAdministrator)
          throw new PermissionError(`Only the ${ADMINISTRATOR_USER} may reset this user's two-factor login`);
      }
      await services.write(
        caller,
        async (w) => {
          const settings = await readTwoFactorSettings(w.q, w.dialect);
          if (!settings.enabled) throw new ValidationError(NOT_ENABLED);
          const [row] = await w.q.all<{ email: string | null }>(w.dialect.builder.selectFrom('tabUser').select('email').where('name', '=', target).compile());
          if (!row) throw new DoesNotExistError(`User ${target.slice(0, 140)} not found`);
          await removeAuthenticator(w.q, w.dialect, target);
          if (row.email) await deps.mail.queue(w, accountMail(row.email, target, twoFactorMails.resetNotice(settings.issuer)));
          w.messages.add('OTP Secret has been reset. Re-registration will be required on next login.');
        },
        { messages: ctx.messages, sid: call.http.sid },
      );
      return undefined;
    },
    {
      methods: ['POST'],
      ownTransactions: true,
      params: [{ name: 'user', type: 'string', required: true }],
      description: "Removes a user's authenticator and recovery codes (the user themself, or a System Manager); they set it up again at their next login.",
    },
  );

  methods.register(
    `${PREFIX}.get_qrcode`,
    async (call) => {
      const { ctx, args, http } = call;
      await limit(call, `2fa-qr:${http.ip || 'unknown'}`, QR_LIMIT, 'Too many requests. Please try again later.');
      const key = typeof args.k === 'string' ? args.k : '';
      const user = await findQrKey(ctx.q, ctx.dialect, key, deps.now());
      const principal = user === undefined ? undefined : await loadPrincipal(ctx.q, ctx.dialect, user);
      const auth = user === undefined ? undefined : await readAuthenticator(ctx.q, ctx.dialect, user, deps.encryptionKey);
      if (user === undefined || !principal || auth?.pending === undefined)
        throw new DoesNotExistError('This link has expired or is not valid: sign in again to get a new one');
      const settings = await readTwoFactorSettings(ctx.q, ctx.dialect);
      const uri = otpauthUri(auth.pending, user, settings.issuer);
      return { user, issuer: settings.issuer, secret: auth.pending, otpauth_uri: uri, qr_svg: await qrSvg(uri) };
    },
    {
      allowGuest: true,
      methods: ['GET', 'POST'],
      ownTransactions: true,
      params: [{ name: 'k', type: 'string', required: true }],
      description: 'The page behind the link a first OTP App login mails: the secret to add to an authenticator app, as text, URI and QR code.',
    },
  );

  /** A current TOTP code of `secret` (not used before) or an unused recovery code, spent. */
  async function spendCode(q: Queryable, ctx: MethodCall['ctx'], user: string, secret: string, code: string): Promise<boolean> {
    const step = matchingStep(secret, code, deps.now());
    if (step !== undefined) return spendStep(q, ctx.dialect, user, step);
    return spendRecoveryCode(q, ctx.dialect, user, code);
  }
}
