import { randomBytes } from 'node:crypto';
import { loadPrincipal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { LoginGate, LoginOutcome, Verification } from '../rpc/builtin/login-gate.js';
import { invalidLogin, loginKeys, loginThrottle, startLoginSession } from '../rpc/builtin/login-session.js';
import type { MethodCall } from '../rpc/method-registry.js';
import type { Queryable } from '../storage/database.js';
import { confirmSecret, readAuthenticator, saveQrKey, savePendingSecret, spendStep, type Authenticator } from './authenticator-store.js';
import { clientHash, consumeChallenge, createChallenge, findChallenge, mailedCodeMatches, recordWrongCode, type Challenge } from './login-challenges.js';
import { spendRecoveryCode } from './recovery-codes.js';
import { matchingStep, newTotpSecret } from './totp.js';
import { accountMail, twoFactorMails, type MailQueue } from './two-factor-mail.js';
import { readTwoFactorSettings, roleRequiresTwoFactor, type TwoFactorSettings } from './two-factor-settings.js';

/** What the gate needs: mail, the key secrets are encrypted with, the site's origin for links, a clock. */
export interface GateDeps {
  readonly mail: MailQueue;
  readonly encryptionKey: string;
  /** The site's public origin, for the QR link of a first login. */
  readonly baseUrl: string;
  /** Epoch ms (the job queue's clock, which tests move). */
  readonly now: () => number;
}

/** The `message` of a first step that asks for a code. */
export const VERIFY_MESSAGE = 'Verification code required';
const EXPIRED = 'Login session expired, refresh page to retry';
const WRONG_CODE = 'Incorrect Verification code';

/** Thrown inside the session's transaction when the code is not right, so nothing of the attempt stays. */
class WrongCode extends Error {}

/**
 * Two-factor login as the reference's wire has it (docs/identity.md "Two-factor login"), behind the
 * one login gate every way in passes through.
 */
export function twoFactorGate(deps: GateDeps): LoginGate {
  return {
    beginLogin: (call, user) => beginLogin(deps, call, user),
    continueLogin: (call, tmpId, otp) => continueLogin(deps, call, tmpId, otp),
  };
}

async function beginLogin(deps: GateDeps, call: MethodCall, user: string): Promise<LoginOutcome> {
  const { ctx, services, http } = call;
  // Read first (no write unit for the logins of a site without two-factor login).
  const settings = await readTwoFactorSettings(ctx.q, ctx.dialect);
  const step = settings.enabled
    ? await services.write(ctx.principal, async (w) => {
        const principal = await loadPrincipal(w.q, w.dialect, user);
        if (!principal) return undefined;
        const auth = await readAuthenticator(w.q, w.dialect, user, deps.encryptionKey);
        // Asked by a role, or set up by the user themself.
        if (auth.secret === undefined && !(await roleRequiresTwoFactor(w.q, w.dialect, principal))) return undefined;
        const nowMs = deps.now();
        const challenge = await createChallenge(w.q, w.dialect, { user, client: clientHash(http.ip, http.userAgent), method: settings.method, nowMs });
        const verification = await deliver(deps, w, { settings, user, auth, code: challenge.code, nowMs });
        return { tmpId: challenge.tmpId, verification };
      })
    : undefined;
  if (step === undefined) return { kind: 'session', message: await startLoginSession(call, user) };
  return { kind: 'verify', message: VERIFY_MESSAGE, tmpId: step.tmpId, verification: step.verification };
}

/** Sends what the second step needs (a code, or a first login's QR link) and answers the reference's `verification`. */
async function deliver(
  deps: GateDeps,
  ctx: DocContext,
  input: { settings: TwoFactorSettings; user: string; auth: Authenticator; code: string | undefined; nowMs: number },
): Promise<Verification> {
  const { settings, user, auth } = input;
  if (settings.method === 'OTP App' && auth.secret !== undefined) return { method: 'OTP App', setup: true };
  const [row] = await ctx.q.all<{ email: string | null }>(ctx.dialect.builder.selectFrom('tabUser').select('email').where('name', '=', user).compile());
  const email = row?.email ?? '';
  if (email === '') return { token_delivery: false, prompt: false, method: 'Email', setup: false };
  if (settings.method === 'Email') {
    await deps.mail.queue(ctx, accountMail(email, user, twoFactorMails.code(settings.issuer, input.code ?? '')));
    return { token_delivery: true, prompt: 'Verification code has been sent to your registered email address.', method: 'Email', setup: true };
  }
  // The first OTP App login: the secret is handed out through a short-lived link mailed to the user.
  const secret = auth.pending ?? newTotpSecret();
  if (auth.pending === undefined) await savePendingSecret(ctx.q, ctx.dialect, user, secret, deps.encryptionKey);
  const key = randomBytes(24).toString('base64url');
  await saveQrKey(ctx.q, ctx.dialect, user, key, input.nowMs + settings.qrLifespanS * 1000);
  const link = `${deps.baseUrl}/qrcode?k=${key}`;
  await deps.mail.queue(ctx, accountMail(email, user, twoFactorMails.qrLink(settings.issuer, link, Math.max(1, Math.round(settings.qrLifespanS / 60)))));
  return {
    token_delivery: true,
    prompt: 'Please check your registered email address for instructions on how to proceed. Do not close this window as you will have to return to it.',
    method: 'Email',
    setup: true,
  };
}

async function continueLogin(deps: GateDeps, call: MethodCall, tmpId: string, otp: string): Promise<LoginOutcome> {
  const { ctx, services, http } = call;
  const nowMs = deps.now();
  const challenge = await findChallenge(ctx.q, ctx.dialect, tmpId, clientHash(http.ip, http.userAgent), nowMs);
  // Every code counts against the lockout of the client and the user, as a password does.
  await loginThrottle(call, await services.settings()).begin(loginKeys(call, challenge?.user));
  if (!challenge) throw invalidLogin(http, EXPIRED);
  try {
    const message = await startLoginSession(call, challenge.user, async (q) => {
      if (!(await consumeChallenge(q, ctx.dialect, challenge.idHash))) throw new WrongCode();
      if (!(await acceptCode(deps, q, call, challenge, otp.trim(), nowMs))) throw new WrongCode();
    });
    return { kind: 'session', message };
  } catch (err) {
    if (!(err instanceof WrongCode)) throw err;
    await services.transaction((q) => recordWrongCode(q, ctx.dialect, challenge.idHash));
    throw invalidLogin(http, WRONG_CODE);
  }
}

/**
 * True when `code` proves the second factor, spending it: the mailed code (its login is consumed
 * with it), a TOTP code of a step not used before, or an unused recovery code.
 */
async function acceptCode(deps: GateDeps, q: Queryable, call: MethodCall, challenge: Challenge, code: string, nowMs: number): Promise<boolean> {
  const { dialect } = call.ctx;
  if (challenge.method === 'Email') {
    if (mailedCodeMatches(challenge, code)) return true;
  } else {
    const auth = await readAuthenticator(q, dialect, challenge.user, deps.encryptionKey);
    // Once confirmed, only the confirmed secret counts; before, the one the first login mailed.
    const secret = auth.secret ?? auth.pending;
    const step = secret === undefined ? undefined : matchingStep(secret, code, nowMs);
    if (step !== undefined && secret !== undefined) {
      if (!(await spendStep(q, dialect, challenge.user, step))) return false;
      if (auth.secret === undefined) await confirmSecret(q, dialect, challenge.user, secret, deps.encryptionKey);
      return true;
    }
  }
  return spendRecoveryCode(q, dialect, challenge.user, code);
}
