import { isValidTimeZone } from '../datetime/clock.js';

/** The Single DocType whose values override site_config.json. */
export const SYSTEM_SETTINGS = 'System Settings';

/** The settings System Settings can override; the rest of SiteConfig is known before the database opens. */
export type SettingKey =
  | 'time_zone'
  | 'session_expiry'
  | 'max_file_size'
  | 'allow_consecutive_login_attempts'
  | 'allow_login_after_fail'
  | 'deny_multiple_sessions'
  | 'allow_cors'
  | 'enable_password_policy'
  | 'minimum_password_score';

/**
 * The settings in effect, in site_config.json's units (seconds, bytes): site_config.json gives
 * their defaults (`SiteConfig` has every one of them), System Settings overrides them.
 */
export interface Settings {
  readonly time_zone: string;
  /** Idle session expiry in seconds. */
  readonly session_expiry: number;
  readonly max_file_size: number;
  readonly allow_consecutive_login_attempts: number;
  readonly allow_login_after_fail: number;
  /** When true, a login ends the user's other sessions. */
  readonly deny_multiple_sessions: boolean;
  /** Origins browsers may call from with credentials: `"*"` (any) or a list; null for none. */
  readonly allow_cors: '*' | readonly string[] | null;
  /** The reference's password strength policy: new passwords need `minimum_password_score` (zxcvbn, 1-4). */
  readonly enable_password_policy: boolean;
  readonly minimum_password_score: number;
}

const MIB = 1024 * 1024;
const SESSION_EXPIRY = /^(\d+):([0-5]\d)$/;
const ORIGIN = /^https?:\/\/[^\s/?#]+\/?$/i;

/** System Settings' `session_expiry` (`hh:mm`, as the reference writes it, e.g. `168:00`) in seconds; undefined when empty or malformed. */
export function parseSessionExpiry(text: string): number | undefined {
  const match = SESSION_EXPIRY.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60;
  return seconds > 0 ? seconds : undefined;
}

/** The entries of System Settings' `allow_cors` (one per line; commas and spaces separate too). */
export function corsEntries(text: string): string[] {
  return text.split(/[\s,]+/).filter((entry) => entry !== '');
}

/** True when `entry` may stand in `allow_cors`: `*` or an origin such as `https://app.example.com`. */
export function isCorsEntry(entry: string): boolean {
  return entry === '*' || ORIGIN.test(entry);
}

/** `allow_cors` text as the CORS hook wants it: `"*"`, a list of origins, or undefined when empty. */
export function parseAllowCors(text: string): Settings['allow_cors'] | undefined {
  const entries = corsEntries(text).filter(isCorsEntry);
  if (entries.length === 0) return undefined;
  return entries.includes('*') ? '*' : entries;
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');
const wholeOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

/**
 * The settings in effect: each System Settings value that is set wins over site_config.json's.
 * Empty text, a zero file size, session expiry or lockout window mean "not set" (as in the
 * reference, where `max_file_size` 0 falls back to the site config); a stored
 * `allow_consecutive_login_attempts` of 0 is a real value (the lockout is off).
 */
export function effectiveSettings(config: Settings, stored: Readonly<Record<string, unknown>>): Settings {
  const zone = textOf(stored.time_zone).trim();
  const attempts = wholeOf(stored.allow_consecutive_login_attempts);
  const window = wholeOf(stored.allow_login_after_fail);
  const megabytes = wholeOf(stored.max_file_size);
  const deny = stored.deny_multiple_sessions;
  const policy = stored.enable_password_policy;
  const score = Number(textOf(stored.minimum_password_score) || stored.minimum_password_score);
  return {
    time_zone: zone !== '' && isValidTimeZone(zone) ? zone : config.time_zone,
    session_expiry: parseSessionExpiry(textOf(stored.session_expiry)) ?? config.session_expiry,
    allow_consecutive_login_attempts: attempts ?? config.allow_consecutive_login_attempts,
    allow_login_after_fail: window ? window : config.allow_login_after_fail,
    max_file_size: megabytes ? megabytes * MIB : config.max_file_size,
    deny_multiple_sessions: deny === 0 || deny === 1 ? deny === 1 : config.deny_multiple_sessions,
    allow_cors: parseAllowCors(textOf(stored.allow_cors)) ?? config.allow_cors,
    enable_password_policy: policy === 0 || policy === 1 ? policy === 1 : config.enable_password_policy,
    minimum_password_score: Number.isInteger(score) && score >= 1 && score <= 4 ? score : config.minimum_password_score,
  };
}
