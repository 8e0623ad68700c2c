import { Secret, TOTP } from 'otpauth';

/*
 * TOTP as RFC 6238 and every authenticator app do it: SHA-1, 6 digits, 30-second steps, a 20-byte
 * (160-bit) secret (docs/identity.md "Two-factor login"). One step of clock skew either way is
 * accepted; which step matched is answered, so a code once accepted can be refused when replayed.
 */

const PERIOD_S = 30;
const DIGITS = 6;
/** A code of the step before or after the current one is accepted too. */
const WINDOW = 1;

/** A new random secret, base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** The `otpauth://totp/...` URI an authenticator app scans. */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  return totp(secret, account, issuer).toString();
}

/** True when `code` has the shape of a TOTP or mailed code: six digits. */
export function looksLikeCode(code: string): boolean {
  return /^\d{6}$/.test(code);
}

/**
 * The time step `code` belongs to when it is the secret's code for the step of `nowMs` or one step
 * either side; undefined otherwise. The comparison is otpauth's constant-time one.
 */
export function matchingStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!looksLikeCode(code)) return undefined;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(nowMs / 1000 / PERIOD_S) + delta;
}
