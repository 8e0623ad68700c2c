import { isValidTimeZone } from '../datetime/clock.js';
import { fromSingleText, readSingleRows } from '../documents/single-rows.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Meta } from '../meta/meta.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { SiteConfig } from './site-config.js';
import type { Site } from './site.js';

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

/** The settings in effect, in site_config.json's units (seconds, bytes). */
export type Settings = Pick<SiteConfig, SettingKey>;

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
const wholeOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

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

/** The values System Settings holds (rows that exist), in their JSON form. */
async function storedSystemSettings(q: Queryable, dialect: Dialect, meta: Meta): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, text] of await readSingleRows(q, dialect, meta.name)) {
    const field = meta.field(key);
    if (field?.column) out[key] = fromSingleText(field, text);
  }
  return out;
}

/**
 * A site's settings as last read, kept per process. The metadata registry compiles new Meta
 * objects whenever it reloads, and it reloads exactly when the version token changed, which a
 * System Settings save bumps (in its own transaction); so comparing the System Settings Meta with
 * the one the settings were read under is the cross-process version check, and costs nothing
 * while nothing changed.
 */
export class SettingsCache {
  readonly #config: Settings;
  #settings: Settings;
  #source: Meta | undefined;
  #loaded = false;

  constructor(config: SiteConfig) {
    this.#config = effectiveSettings(config, {});
    this.#settings = this.#config;
  }

  /** The settings as last read; site_config.json's until the first read. */
  get current(): Settings {
    return this.#settings;
  }

  /** True when the settings were read under the metadata `metas` holds now. */
  isCurrent(metas: MetaRegistry): boolean {
    return this.#loaded && this.#source === systemSettingsMeta(metas);
  }

  /** Reads System Settings again when the metadata changed since the last read; no I/O otherwise. */
  async refresh(q: Queryable, dialect: Dialect, metas: MetaRegistry): Promise<Settings> {
    if (this.isCurrent(metas)) return this.#settings;
    const source = systemSettingsMeta(metas);
    const stored = source ? await storedSystemSettings(q, dialect, source) : {};
    this.#settings = effectiveSettings(this.#config, stored);
    this.#source = source;
    this.#loaded = true;
    return this.#settings;
  }
}

function systemSettingsMeta(metas: MetaRegistry): Meta | undefined {
  return metas.has(SYSTEM_SETTINGS) ? metas.get(SYSTEM_SETTINGS) : undefined;
}

/** Options of siteSettings. */
export interface SiteSettingsOptions {
  /**
   * Check the metadata version first (one indexed read): for code that runs before the request's
   * own check (CORS preflights, multipart staging), so a change made by another process applies
   * to the very next request there too.
   */
  readonly fresh?: boolean;
}

/**
 * The one way to read settings: the System Settings single (values that are set) over
 * site_config.json. Inside a unit of work (Site.read/write/detached, which refresh it right after
 * the metadata check) this is a cached value; otherwise it reads only when the metadata changed.
 */
export async function siteSettings(site: Site, options: SiteSettingsOptions = {}): Promise<Settings> {
  if (!options.fresh && site.settingsCache.isCurrent(site.metas)) return site.settingsCache.current;
  return site.db.read(async (q) => {
    if (options.fresh) await site.metas.refreshIfStale(q);
    return site.settingsCache.refresh(q, site.db.dialect, site.metas);
  });
}
