import type { Principal } from '../auth/principal.js';
import { readSingleRows } from '../documents/singles/single-rows.js';
import { SYSTEM_SETTINGS } from '../settings/settings.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** The two ways a second factor is delivered (System Settings `two_factor_method`). */
export type TwoFactorMethod = 'OTP App' | 'Email';

/** System Settings' two-factor fields, as the reference names them (docs/identity.md "For administrators"). */
export interface TwoFactorSettings {
  /** The master switch: off, nobody is asked for a code. */
  readonly enabled: boolean;
  readonly method: TwoFactorMethod;
  /** How long the link of a mailed QR code works, in seconds (reference default 240). */
  readonly qrLifespanS: number;
  /** The issuer an authenticator app shows beside the account. */
  readonly issuer: string;
}

const DEFAULT_QR_LIFESPAN_S = 240;
const DEFAULT_ISSUER = 'fw';

/** Reads the two-factor fields of System Settings on `q`. */
export async function readTwoFactorSettings(q: Queryable, dialect: Dialect): Promise<TwoFactorSettings> {
  const rows = await readSingleRows(q, dialect, SYSTEM_SETTINGS);
  const lifespan = Number(rows.get('lifespan_qrcode_image'));
  const issuer = (rows.get('otp_issuer_name') ?? '').trim();
  return {
    enabled: Number(rows.get('enable_two_factor_auth')) === 1,
    method: rows.get('two_factor_method') === 'Email' ? 'Email' : 'OTP App',
    qrLifespanS: Number.isInteger(lifespan) && lifespan > 0 ? lifespan : DEFAULT_QR_LIFESPAN_S,
    issuer: issuer || DEFAULT_ISSUER,
  };
}

/**
 * True when a role of `principal` asks for two-factor login: a Role with `two_factor_auth` that the
 * user holds, `All` included (every signed-in user holds it, so marking `All` asks everyone).
 */
export async function roleRequiresTwoFactor(q: Queryable, dialect: Dialect, principal: Principal): Promise<boolean> {
  const roles = [...principal.roles];
  if (roles.length === 0) return false;
  const rows = await q.all<{ name: string }>(
    dialect.builder.selectFrom('tabRole').select('name').where('two_factor_auth', '=', 1).where('name', 'in', roles).limit(1).compile(),
  );
  return rows.length > 0;
}
