import { createHash } from 'node:crypto';
import { AUTH_TABLE } from '../auth/auth-tables.js';
import { getFieldSecret, saveFieldSecret } from '../auth/field-secrets.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/*
 * A user's authenticator lives in `__Auth` beside their password hash, as rows of the User
 * (docs/security.md "Secrets at rest"): deleting or renaming the user takes them along, and no
 * DocType, list or API answer can reach them.
 *
 * | fieldname | holds |
 * |---|---|
 * | `otp_secret` | the confirmed TOTP secret, AES-GCM encrypted with the site's `encryption_key` |
 * | `otp_pending_secret` | a secret handed out (setup, or the first login's mailed QR code) and not yet confirmed, encrypted |
 * | `otp_last_step` | the newest time step a code was accepted for, so no code is accepted twice |
 * | `otp_qrcode_key` | the SHA-256 of the mailed QR link's key and when it expires |
 * | `otp_recovery:<sha256>` | one unused recovery code (recovery-codes.ts) |
 */

const SECRET = 'otp_secret';
const PENDING = 'otp_pending_secret';
const LAST_STEP = 'otp_last_step';
const QR_KEY = 'otp_qrcode_key';
/** Every two-factor row of a user starts with this. */
export const OTP_PREFIX = 'otp_';

/** Steps are compared as text: zero-padded to one width, text order is number order on both engines. */
const stepText = (step: number): string => String(step).padStart(16, '0');

/** What fw knows of a user's authenticator. */
export interface Authenticator {
  /** The confirmed secret, when two-factor login is set up. */
  readonly secret: string | undefined;
  /** A secret handed out and not confirmed yet. */
  readonly pending: string | undefined;
}

/** The user's confirmed and pending secrets (decrypted). */
export async function readAuthenticator(q: Queryable, dialect: Dialect, user: string, encryptionKey: string): Promise<Authenticator> {
  const ref = (fieldname: string) => ({ doctype: 'User', name: user, fieldname });
  return {
    secret: await getFieldSecret(q, dialect, ref(SECRET), encryptionKey),
    pending: await getFieldSecret(q, dialect, ref(PENDING), encryptionKey),
  };
}

/** Stores `secret` as the user's pending secret (replacing an earlier one). */
export async function savePendingSecret(q: Queryable, dialect: Dialect, user: string, secret: string, encryptionKey: string): Promise<void> {
  await saveFieldSecret(q, dialect, { doctype: 'User', name: user, fieldname: PENDING }, secret, encryptionKey);
}

/** Makes `secret` the user's confirmed secret and drops the pending one and any QR link. */
export async function confirmSecret(q: Queryable, dialect: Dialect, user: string, secret: string, encryptionKey: string): Promise<void> {
  await saveFieldSecret(q, dialect, { doctype: 'User', name: user, fieldname: SECRET }, secret, encryptionKey);
  await deleteRows(q, dialect, user, [PENDING, QR_KEY]);
}

/**
 * Records that a code of `step` was accepted, in the caller's transaction. False when a code of this
 * step or a later one was accepted before: the code is a replay (or older than one already used).
 * One atomic upsert decides, so two requests racing with the same code cannot both pass.
 */
export async function spendStep(q: Queryable, dialect: Dialect, user: string, step: number): Promise<boolean> {
  const password = stepText(step);
  const { changes } = await q.run(
    dialect.builder
      .insertInto(AUTH_TABLE)
      .values({ doctype: 'User', name: user, fieldname: LAST_STEP, password, encrypted: 0 })
      .onConflict((oc) => oc.columns(['doctype', 'name', 'fieldname']).doUpdateSet({ password }).where(`${AUTH_TABLE}.password`, '<', password))
      .compile(),
  );
  return changes > 0;
}

/** Removes the user's authenticator: secrets, QR link and recovery codes (the replay guard stays). */
export async function removeAuthenticator(q: Queryable, dialect: Dialect, user: string): Promise<void> {
  await q.run(
    dialect.builder
      .deleteFrom(AUTH_TABLE)
      .where('doctype', '=', 'User')
      .where('name', '=', user)
      .where('fieldname', 'like', `${OTP_PREFIX}%`)
      .where('fieldname', '!=', LAST_STEP)
      .compile(),
  );
}

async function deleteRows(q: Queryable, dialect: Dialect, user: string, fieldnames: readonly string[]): Promise<void> {
  await q.run(
    dialect.builder
      .deleteFrom(AUTH_TABLE)
      .where('doctype', '=', 'User')
      .where('name', '=', user)
      .where('fieldname', 'in', [...fieldnames])
      .compile(),
  );
}

/** SHA-256 hex of a key or code: what is stored instead of it. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Stores the hash of the user's QR link key with its expiry, replacing an earlier link. */
export async function saveQrKey(q: Queryable, dialect: Dialect, user: string, key: string, expiresMs: number): Promise<void> {
  const password = `${sha256(key)}:${expiresMs}`;
  await q.run(
    dialect.builder
      .insertInto(AUTH_TABLE)
      .values({ doctype: 'User', name: user, fieldname: QR_KEY, password, encrypted: 0 })
      .onConflict((oc) => oc.columns(['doctype', 'name', 'fieldname']).doUpdateSet({ password, encrypted: 0 }))
      .compile(),
  );
}

/** The user a live QR link key belongs to, if any. */
export async function findQrKey(q: Queryable, dialect: Dialect, key: string, nowMs: number): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(key)) return undefined;
  const rows = await q.all<{ name: string; password: string }>(
    dialect.builder
      .selectFrom(AUTH_TABLE)
      .select(['name', 'password'])
      .where('doctype', '=', 'User')
      .where('fieldname', '=', QR_KEY)
      .where('password', 'like', `${sha256(key)}:%`)
      .compile(),
  );
  const row = rows[0];
  if (!row) return undefined;
  const expires = Number(String(row.password).split(':')[1]);
  return nowMs < expires ? String(row.name) : undefined;
}
