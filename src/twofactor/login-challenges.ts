import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Queryable, SqlStatement } from '../storage/database.js';
import type { ColumnSpec, Dialect } from '../storage/dialect.js';
import { sha256 } from './authenticator-store.js';
import type { TwoFactorMethod } from './two-factor-settings.js';

/*
 * Logins waiting for their second factor (docs/identity.md "Two-factor login"). The client holds
 * the `tmp_id` (32 random bytes); the table holds only its SHA-256, the user whose password was
 * right, a hash of the client (address and user agent) it was issued to, the expiry, the wrong codes
 * so far and, for the Email method, the hash of the mailed code. Unlike the reference, the password
 * itself is never kept anywhere.
 */

/** The internal table of waiting logins (reserved `__` prefix: no DocType can reach it). */
export const CHALLENGE_TABLE = '__TwoFactorLogin';

/** Wrong codes a waiting login survives; the fifth ends it. */
export const MAX_WRONG_CODES = 5;
/** Lifetimes as the reference's: 3 minutes to type an app's code, 5 to fetch a mailed one. */
const LIFETIME_S: Readonly<Record<TwoFactorMethod, number>> = { 'OTP App': 180, Email: 300 };

/** CREATE TABLE, idempotent (run at every site open with the other system tables). */
export function challengeTableStatements(dialect: Dialect): SqlStatement[] {
  const type = (spec: ColumnSpec) => sql.raw(dialect.columnType(spec));
  const hash = type({ kind: 'varchar', length: 64 });
  return [
    dialect.builder.schema
      .createTable(CHALLENGE_TABLE)
      .ifNotExists()
      .addColumn('id_hash', hash, (c) => c.primaryKey())
      .addColumn('user', type({ kind: 'varchar', length: 140 }), (c) => c.notNull())
      .addColumn('client', hash, (c) => c.notNull())
      .addColumn('method', type({ kind: 'varchar', length: 20 }), (c) => c.notNull())
      .addColumn('code_hash', hash)
      .addColumn('expires_at', type({ kind: 'bigint' }), (c) => c.notNull())
      .addColumn('failures', type({ kind: 'int' }), (c) => c.notNull().defaultTo(0))
      .compile(),
    dialect.builder.schema.createIndex(`${CHALLENGE_TABLE}_expires_at_index`).ifNotExists().on(CHALLENGE_TABLE).column('expires_at').compile(),
  ];
}

/** Who a login is bound to: a hash of the client's address and user agent. */
export function clientHash(ip: string, userAgent: string | undefined): string {
  return sha256(`${ip}\n${userAgent ?? ''}`);
}

/** A waiting login as stored. */
export interface Challenge {
  readonly idHash: string;
  readonly user: string;
  readonly client: string;
  readonly method: TwoFactorMethod;
  readonly codeHash: string | null;
  readonly expiresAt: number;
  readonly failures: number;
}

/** The hash a mailed code is kept under: bound to its login, so equal codes of two logins differ. */
function codeHash(idHash: string, code: string): string {
  return sha256(`${idHash}:${code}`);
}

/**
 * Stores a new waiting login and answers its `tmp_id` and, for the Email method, the six-digit code
 * to mail. Expired logins are swept on the way.
 */
export async function createChallenge(
  q: Queryable,
  dialect: Dialect,
  input: { user: string; client: string; method: TwoFactorMethod; nowMs: number },
): Promise<{ tmpId: string; code: string | undefined; expiresAt: number }> {
  await q.run(dialect.builder.deleteFrom(CHALLENGE_TABLE).where('expires_at', '<=', input.nowMs).compile());
  const tmpId = randomBytes(32).toString('base64url');
  const idHash = sha256(tmpId);
  const code = input.method === 'Email' ? String(randomInt(0, 1_000_000)).padStart(6, '0') : undefined;
  const expiresAt = input.nowMs + LIFETIME_S[input.method] * 1000;
  await q.run(
    dialect.builder
      .insertInto(CHALLENGE_TABLE)
      .values({
        id_hash: idHash,
        user: input.user,
        client: input.client,
        method: input.method,
        code_hash: code === undefined ? null : codeHash(idHash, code),
        expires_at: expiresAt,
        failures: 0,
      })
      .compile(),
  );
  return { tmpId, code, expiresAt };
}

/** The live waiting login `tmpId` names for `client`; undefined when unknown, expired or another client's. */
export async function findChallenge(q: Queryable, dialect: Dialect, tmpId: string, client: string, nowMs: number): Promise<Challenge | undefined> {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(tmpId)) return undefined;
  const rows = await q.all<Record<string, unknown>>(dialect.builder.selectFrom(CHALLENGE_TABLE).selectAll().where('id_hash', '=', sha256(tmpId)).compile());
  const row = rows[0];
  if (!row) return undefined;
  const challenge: Challenge = {
    idHash: String(row.id_hash),
    user: String(row.user),
    client: String(row.client),
    method: row.method === 'Email' ? 'Email' : 'OTP App',
    codeHash: row.code_hash == null ? null : String(row.code_hash),
    expiresAt: Number(row.expires_at),
    failures: Number(row.failures),
  };
  if (nowMs >= challenge.expiresAt || challenge.failures >= MAX_WRONG_CODES) return undefined;
  if (!timingSafeEqual(Buffer.from(challenge.client), Buffer.from(client))) return undefined;
  return challenge;
}

/** True when `code` is the code mailed for this login. */
export function mailedCodeMatches(challenge: Challenge, code: string): boolean {
  if (challenge.codeHash === null || !/^\d{6}$/.test(code)) return false;
  return timingSafeEqual(Buffer.from(challenge.codeHash), Buffer.from(codeHash(challenge.idHash, code)));
}

/**
 * Counts a wrong code against the login; the fifth ends it (the row goes). Answers the wrong codes
 * counted so far.
 */
export async function recordWrongCode(q: Queryable, dialect: Dialect, idHash: string): Promise<number> {
  await q.run(
    dialect.builder
      .updateTable(CHALLENGE_TABLE)
      .set((eb) => ({ failures: eb('failures', '+', 1) }))
      .where('id_hash', '=', idHash)
      .compile(),
  );
  const rows = await q.all<{ failures: number | string }>(
    dialect.builder.selectFrom(CHALLENGE_TABLE).select('failures').where('id_hash', '=', idHash).compile(),
  );
  const failures = rows[0] === undefined ? MAX_WRONG_CODES : Number(rows[0].failures);
  if (failures >= MAX_WRONG_CODES) await q.run(dialect.builder.deleteFrom(CHALLENGE_TABLE).where('id_hash', '=', idHash).compile());
  return failures;
}

/** Ends a waiting login (it succeeded); false when another request ended it first. */
export async function consumeChallenge(q: Queryable, dialect: Dialect, idHash: string): Promise<boolean> {
  const { changes } = await q.run(dialect.builder.deleteFrom(CHALLENGE_TABLE).where('id_hash', '=', idHash).compile());
  return changes > 0;
}
