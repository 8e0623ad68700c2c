import { createHash, randomBytes } from 'node:crypto';
import { AUTH_TABLE } from '../auth/auth-tables.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/*
 * A login's `state` lives server-side, once (docs/identity.md "Single sign-on"): a row of `__Auth`
 * named by the state's SHA-256, so the database never holds the value the URL carries, and keyed
 * (fieldname) by its expiry, so expired rows are swept with one comparison.
 */
const STATE_DOCTYPE = 'Social Login State';
/** Ten minutes from the login button to the provider's answer. */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;
/** The cookie that pins a login to the browser that started it (SameSite=Lax, so it rides the provider's redirect back). */
export const STATE_COOKIE = 'fw_sso_state';

/** What a login remembers between its start and the provider's answer. */
export interface LoginState {
  readonly provider: string;
  /** Where to send the browser once signed in: a path of this site. */
  readonly redirectTo: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  /** SHA-256 of the browser cookie's value. */
  readonly browserHash: string;
}

/** A new login's values: the `state` for the URL, the cookie value for the browser, PKCE verifier and nonce. */
export function newLoginSecrets(): { state: string; browserToken: string; codeVerifier: string; nonce: string } {
  const token = () => randomBytes(32).toString('base64url');
  return { state: token(), browserToken: token(), codeVerifier: token(), nonce: token() };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Epoch ms as fixed-width text, so text order is time order. */
function expiryKey(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(15, '0');
}

/** Stores a login's state (and sweeps expired ones). */
export async function storeLoginState(q: Queryable, dialect: Dialect, state: string, value: LoginState, nowMs: number): Promise<void> {
  const b = dialect.builder;
  await q.run(b.deleteFrom(AUTH_TABLE).where('doctype', '=', STATE_DOCTYPE).where('fieldname', '<', expiryKey(nowMs)).compile());
  await q.run(
    b
      .insertInto(AUTH_TABLE)
      .values({ doctype: STATE_DOCTYPE, name: sha256(state), fieldname: expiryKey(nowMs + STATE_LIFETIME_MS), password: JSON.stringify(value), encrypted: 0 })
      .compile(),
  );
}

/** Why a state was refused; each maps to one clear message. */
export type StateRefusal = 'unknown' | 'expired';

/**
 * Takes a state out of the store: it is gone afterwards whatever the outcome, so a replay finds
 * nothing. A concurrent second use loses the delete and is refused as unknown.
 */
export async function consumeLoginState(q: Queryable, dialect: Dialect, state: string, nowMs: number): Promise<LoginState | StateRefusal> {
  if (state.length < 16 || state.length > 200) return 'unknown';
  const b = dialect.builder;
  const name = sha256(state);
  const rows = await q.all<{ fieldname: string; password: string }>(
    b.selectFrom(AUTH_TABLE).select(['fieldname', 'password']).where('doctype', '=', STATE_DOCTYPE).where('name', '=', name).compile(),
  );
  const row = rows[0];
  if (!row) return 'unknown';
  const { changes } = await q.run(b.deleteFrom(AUTH_TABLE).where('doctype', '=', STATE_DOCTYPE).where('name', '=', name).compile());
  if (changes !== 1) return 'unknown';
  if (String(row.fieldname) < expiryKey(nowMs)) return 'expired';
  return JSON.parse(String(row.password)) as LoginState;
}
