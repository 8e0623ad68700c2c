import { randomBytes } from 'node:crypto';
import { AUTH_TABLE } from '../auth/auth-tables.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { sha256 } from './authenticator-store.js';

/*
 * Recovery codes (docs/identity.md "For users"): ten per user, each 50 random bits written as
 * two groups of five base32 letters, shown once when two-factor login is confirmed; only their
 * SHA-256 is kept, one `__Auth` row each, and a code is spent by deleting its row, so it works once.
 */

const COUNT = 10;
const PREFIX = 'otp_recovery:';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A code as the user typed it, reduced to what counts: letters and digits, lower case. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** True when `code` could be a recovery code (ten base32 letters, with or without the dash). */
export function looksLikeRecoveryCode(code: string): boolean {
  return /^[a-z2-7]{10}$/.test(normaliseRecoveryCode(code));
}

function newCode(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (let i = 0; i < 10; i++) out += ALPHABET[bytes[i]! & 31];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** Replaces the user's recovery codes with ten new ones, stored hashed; answers them, to be shown once. */
export async function issueRecoveryCodes(q: Queryable, dialect: Dialect, user: string): Promise<string[]> {
  await deleteRecoveryCodes(q, dialect, user);
  const codes = Array.from({ length: COUNT }, newCode);
  for (const code of codes) {
    await q.run(
      dialect.builder
        .insertInto(AUTH_TABLE)
        .values({ doctype: 'User', name: user, fieldname: `${PREFIX}${sha256(normaliseRecoveryCode(code))}`, password: '1', encrypted: 0 })
        .compile(),
    );
  }
  return codes;
}

/** Spends one recovery code of the user in the caller's transaction; false when it is not one of theirs or was used. */
export async function spendRecoveryCode(q: Queryable, dialect: Dialect, user: string, code: string): Promise<boolean> {
  if (!looksLikeRecoveryCode(code)) return false;
  const { changes } = await q.run(
    dialect.builder
      .deleteFrom(AUTH_TABLE)
      .where('doctype', '=', 'User')
      .where('name', '=', user)
      .where('fieldname', '=', `${PREFIX}${sha256(normaliseRecoveryCode(code))}`)
      .compile(),
  );
  return changes > 0;
}

/** How many unused recovery codes the user has. */
export async function countRecoveryCodes(q: Queryable, dialect: Dialect, user: string): Promise<number> {
  const rows = await q.all<{ fieldname: string }>(
    dialect.builder
      .selectFrom(AUTH_TABLE)
      .select('fieldname')
      .where('doctype', '=', 'User')
      .where('name', '=', user)
      .where('fieldname', 'like', `${PREFIX}%`)
      .compile(),
  );
  return rows.length;
}

async function deleteRecoveryCodes(q: Queryable, dialect: Dialect, user: string): Promise<void> {
  await q.run(dialect.builder.deleteFrom(AUTH_TABLE).where('doctype', '=', 'User').where('name', '=', user).where('fieldname', 'like', `${PREFIX}%`).compile());
}
