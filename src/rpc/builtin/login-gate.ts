import type { MethodCall } from '../method-registry.js';

/** What the second step of a login asks for: the reference's `verification` object (docs/identity.md "Two-factor login"). */
export interface Verification {
  readonly method: 'OTP App' | 'Email';
  readonly setup: boolean;
  /** Email, and the first OTP App login: whether the mail was queued. */
  readonly token_delivery?: boolean;
  /** What to tell the user (Email, and the first OTP App login). */
  readonly prompt?: string | false;
}

/** How a login went on once its first factor was proven. */
export type LoginOutcome =
  /** A session was started and its cookies set; `message` is "Logged In" or "No App". */
  | { readonly kind: 'session'; readonly message: string }
  /** No session yet: the client sends `otp` with `tmp_id` to the second step. */
  | { readonly kind: 'verify'; readonly message: string; readonly tmpId: string; readonly verification: Verification };

/**
 * The one way a login is completed after its first factor (docs/identity.md "Completing a login"):
 * the password login calls it, and so must every other way in that proves who a browser is (social
 * login), so a second factor can never be skipped. API keys and OAuth bearer tokens are not logins
 * and never meet it.
 */
export interface LoginGate {
  /**
   * `user` proved their first factor on this call's client: start a session now, or (two-factor login
   * applies to them) answer the second step. The caller has counted the attempt against the lockout.
   */
  beginLogin(call: MethodCall, user: string): Promise<LoginOutcome>;
  /** The second step: `otp` (a code, or a recovery code) for the login `tmp_id` names. */
  continueLogin(call: MethodCall, tmpId: string, otp: string): Promise<LoginOutcome>;
}
