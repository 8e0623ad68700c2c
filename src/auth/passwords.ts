import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AuthenticationError, ValidationError } from '../errors/index.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { AUTH_TABLE } from './auth-tables.js';

/** The longest password accepted, in characters, as the reference's MAX_PASSWORD_SIZE. */
export const MAX_PASSWORD_LENGTH = 512;

/** scrypt cost parameters; the defaults are OWASP's minimum for scrypt. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** The cost used for new hashes. */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { N: 2 ** 14, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Bounds on parameters read back from storage, so a corrupted row cannot make one check cost gigabytes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function scryptAsync(plain: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 };
  return new Promise((resolve, reject) => {
    scrypt(plain.normalize('NFC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Refuses oversize passwords before any hashing, so a huge body cannot buy CPU time. */
function assertPasswordSize(plain: string): void {
  // Counted in code points like the reference; `length` (UTF-16 units) can only over-count.
  if (plain.length > MAX_PASSWORD_LENGTH && [...plain].length > MAX_PASSWORD_LENGTH) {
    throw new AuthenticationError('Password size exceeded the maximum allowed size');
  }
}

/** Hashes a password as `scrypt$N$r$p$<salt base64>$<hash base64>`, with a fresh random salt. */
export async function hashPassword(plain: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  assertPasswordSize(plain);
  if (plain === '') throw new ValidationError('Password cannot be empty');
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(plain, salt, KEY_BYTES, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

interface ParsedHash {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const validN = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!validN || !Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) {
    return undefined;
  }
  const salt = Buffer.from(parts[4], 'base64');
  const hash = Buffer.from(parts[5], 'base64');
  if (salt.length === 0 || hash.length === 0) return undefined;
  return { params: { N, r, p }, salt, hash };
}

/**
 * True when `plain` matches a hash from {@link hashPassword}; the comparison takes constant time.
 * An unreadable stored value never matches.
 */
export async function verifyPassword(plain: string, stored: string): Promise<boolean> {
  assertPasswordSize(plain);
  const parsed = parseHash(stored);
  if (!parsed || plain === '') return false;
  const candidate = await scryptAsync(plain, parsed.salt, parsed.hash.length, parsed.params);
  return timingSafeEqual(candidate, parsed.hash);
}

const USER_DOCTYPE = 'User';
const PASSWORD_FIELD = 'password';

/** Stores (or replaces) the login password of `user`, hashed. */
export async function setUserPassword(q: Queryable, dialect: Dialect, user: string, plain: string): Promise<void> {
  const hashed = await hashPassword(plain);
  await q.run(
    dialect.builder
      .insertInto(AUTH_TABLE)
      .values({ doctype: USER_DOCTYPE, name: user, fieldname: PASSWORD_FIELD, password: hashed, encrypted: 0 })
      .onConflict((oc) => oc.columns(['doctype', 'name', 'fieldname']).doUpdateSet({ password: hashed, encrypted: 0 }))
      .compile(),
  );
}

// A hash to check against when the user has no password, so the answer takes as long either way
// and response times do not reveal which users exist.
let decoyHash: Promise<string> | undefined;

/**
 * True when `plain` is the login password of `user`. Does not look at `enabled`: the caller loads
 * the principal for that. Oversize passwords throw AuthenticationError.
 */
export async function checkUserPassword(q: Queryable, dialect: Dialect, user: string, plain: string): Promise<boolean> {
  assertPasswordSize(plain);
  const rows = await q.all<{ password: string }>(
    dialect.builder
      .selectFrom(AUTH_TABLE)
      .select('password')
      .where('doctype', '=', USER_DOCTYPE)
      .where('name', '=', user)
      .where('fieldname', '=', PASSWORD_FIELD)
      .where('encrypted', '=', 0)
      .compile(),
  );
  if (rows.length === 0) {
    decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(plain || 'x', await decoyHash);
    return false;
  }
  return verifyPassword(plain, rows[0].password);
}
