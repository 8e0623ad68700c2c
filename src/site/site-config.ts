import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { isValidTimeZone } from '../datetime/clock.js';
import { DEFAULT_FILE_STORAGE, parseFileStorageConfig, type FileStorageConfig } from '../files/file-storage-config.js';
import { DEFAULT_REALTIME_CONFIG, parseRealtimeConfig, type RealtimeConfig } from '../realtime/realtime-config.js';
import { DEFAULT_MAIL_CONFIG, parseMailConfig, type MailConfig } from '../mail/mail-config.js';
import { checkDatabaseUrl } from '../storage/database-url.js';
import { parseAllowedTargets, type AllowedTarget } from '../webhooks/allowed-targets.js';
import { readConfigObject, SiteConfigError, unknownKeyWarnings } from './site-config-file.js';

export { SiteConfigError } from './site-config-file.js';

/** What a site knows before its database opens, and the defaults of every setting (site_config.json). */
export interface SiteConfig {
  /** `sqlite:<file>` (relative to the site folder) or `postgres://...`. */
  readonly db_url: string;
  /** Key for encrypted Password-field values; generated at site creation. */
  readonly encryption_key: string;
  readonly developer_mode: boolean;
  readonly time_zone: string;
  /** Idle session expiry in seconds. */
  readonly session_expiry: number;
  readonly max_request_size: number;
  readonly max_file_size: number;
  readonly allow_consecutive_login_attempts: number;
  readonly allow_login_after_fail: number;
  readonly db_pool_size: number;
  /** PostgreSQL: seconds to wait for a connection before a request fails with 503. */
  readonly db_connect_timeout: number;
  /** PostgreSQL: seconds one statement may run before the server cancels it (503). */
  readonly db_statement_timeout: number;
  /** PostgreSQL: keep hot statements prepared by name on each connection (off behind a pooler that cannot). */
  readonly db_prepared_statements: boolean;
  readonly apps: readonly string[];
  /**
   * Which reverse proxies in front of fw may be believed about the client (X-Forwarded-For,
   * -Proto, -Host): false for none, a number of hops (true is 1), or the proxies' addresses and
   * CIDR ranges (docs/deployment.md, "Behind a reverse proxy").
   */
  readonly trust_proxy: TrustProxy;
  /** When true, a login ends the user's other sessions. */
  readonly deny_multiple_sessions: boolean;
  /** Origins browsers may call from with credentials: `"*"` (any) or a list; null for none. */
  readonly allow_cors: '*' | readonly string[] | null;
  /**
   * True by default: webhooks refuse loopback, private, link-local and other internal targets
   * unless `webhook_allowed_targets` names them; false turns that guard off (docs/webhooks.md "Safety").
   */
  readonly webhook_deny_private_targets: boolean;
  /** Internal webhook targets the operator allows: host names, addresses or CIDR ranges, each with an optional port. */
  readonly webhook_allowed_targets: readonly AllowedTarget[];
  /** When false, fw serves no admin web UI at /app and /login (docs/admin-ui.md). */
  readonly admin_ui: boolean;
  /** The reference's password strength policy: new passwords need `minimum_password_score` (zxcvbn, 0-4). */
  readonly enable_password_policy: boolean;
  readonly minimum_password_score: number;
  /**
   * Maintenance (docs/configuration.md "Maintenance"): writes answer 503; reads too unless
   * `allow_reads_during_maintenance`. Read again from the file at each request (site/maintenance.ts).
   */
  readonly maintenance_mode: boolean;
  readonly allow_reads_during_maintenance: boolean;
  /**
   * A secret that lets a scraper read `/metrics` as `Authorization: Bearer <token>` without a user
   * (docs/deployment.md "Metrics"); null: only System Managers may.
   */
  readonly metrics_token: string | null;
  /** Socket.IO and event-stream settings: site_name, socketio_port, realtime_* limits (docs/realtime.md). */
  readonly realtime: RealtimeConfig;
  /** The reference's mail keys: mail_server, mail_port, use_ssl, use_tls, mail_login, mail_password, auto_email_id (docs/mail.md). */
  readonly mail: MailConfig;
  /** Where uploaded files live: local disk or an S3-compatible bucket (docs/files.md "Storage backends"). */
  readonly file_storage: FileStorageConfig;
  /**
   * Under `fw serve --sites`: a request naming this site in `X-Frappe-Site-Name` is served by it
   * whatever its Host (the reference's proxy set-up; docs/deployment.md "Several sites in one process").
   */
  readonly trust_site_header: boolean;
  /** Written by site creation when fw created the PostgreSQL database itself: `fw drop-site` then drops it too. */
  readonly db_created_by_fw: boolean;
}

/** The `trust_proxy` forms: none, a number of proxy hops, or the proxies' addresses. */
export type TrustProxy = false | number | readonly string[];

/** proxy-addr's names for address ranges, which Fastify accepts beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** True for an IP address, a CIDR range (`10.0.0.0/8`) or a range name such as `loopback`. */
function isProxyAddress(entry: unknown): boolean {
  if (typeof entry !== 'string') return false;
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/**
 * Reads `trust_proxy`: `true` means one proxy (the nearest hop's address is the client's), never
 * "believe every hop", which would let a client name its own address.
 */
function parseTrustProxy(value: unknown): TrustProxy {
  if (value === undefined || value === false || value === 0) return false;
  if (value === true || value === 1) return 1;
  if (Number.isInteger(value) && (value as number) > 0 && (value as number) <= 32) return value as number;
  if (Array.isArray(value) && value.length > 0 && value.every(isProxyAddress)) return value as string[];
  throw new SiteConfigError(
    'site_config.json: "trust_proxy" must be false, a number of proxy hops (1 to 32), or a list of the proxies\' addresses ' +
      'or CIDR ranges like ["10.0.0.5", "10.1.0.0/16"]',
  );
}

export const DEFAULT_CONFIG: Omit<SiteConfig, 'db_url' | 'encryption_key'> = {
  developer_mode: false,
  time_zone: 'UTC',
  session_expiry: 7 * 24 * 3600,
  max_request_size: 10 * 1024 * 1024,
  max_file_size: 25 * 1024 * 1024,
  allow_consecutive_login_attempts: 10,
  allow_login_after_fail: 60,
  db_pool_size: 10,
  db_connect_timeout: 5,
  db_statement_timeout: 30,
  db_prepared_statements: true,
  apps: [],
  trust_proxy: false,
  deny_multiple_sessions: false,
  allow_cors: null,
  webhook_deny_private_targets: true,
  webhook_allowed_targets: [],
  admin_ui: true,
  enable_password_policy: false,
  minimum_password_score: 2,
  maintenance_mode: false,
  allow_reads_during_maintenance: false,
  metrics_token: null,
  realtime: DEFAULT_REALTIME_CONFIG,
  mail: DEFAULT_MAIL_CONFIG,
  file_storage: DEFAULT_FILE_STORAGE,
  trust_site_header: false,
  db_created_by_fw: false,
};

/** Every key fw reads from site_config.json: SiteConfig's, with realtime's settings at the top level. */
export const KNOWN_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'db_url',
  'encryption_key',
  ...Object.keys(DEFAULT_CONFIG).filter((key) => key !== 'realtime' && key !== 'mail'),
  ...Object.keys(DEFAULT_REALTIME_CONFIG),
  ...Object.keys(DEFAULT_MAIL_CONFIG),
]);

/** Options of loadSiteConfig. */
export interface LoadSiteConfigOptions {
  /** Told about keys fw does not read (misspellings); nothing is said when absent. */
  readonly warn?: (message: string) => void;
}

function expect<T>(value: unknown, check: (v: unknown) => boolean, key: string, what: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!check(value)) throw new SiteConfigError(`site_config.json: "${key}" must be ${what}`);
  return value as T;
}

const isBoolean = (v: unknown) => typeof v === 'boolean' || v === 0 || v === 1;
const isCors = (v: unknown) => v === null || v === '*' || (Array.isArray(v) && v.every((o) => typeof o === 'string' && o !== ''));
const positiveInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;
const nonNegativeInt = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const positiveNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;

function webhookAllowedTargets(value: unknown): readonly AllowedTarget[] {
  try {
    return parseAllowedTargets(value);
  } catch (err) {
    throw new SiteConfigError(`site_config.json: "webhook_allowed_targets" ${(err as Error).message}`);
  }
}

/** Reads and validates a site's config, filling defaults. */
export async function loadSiteConfig(file: string, options: LoadSiteConfigOptions = {}): Promise<SiteConfig> {
  const raw = await readConfigObject(file);
  const isString = (v: unknown) => typeof v === 'string' && v !== '';
  const config: SiteConfig = {
    db_url: expect(raw.db_url, isString, 'db_url', 'a database URL', ''),
    encryption_key: expect(raw.encryption_key, isString, 'encryption_key', 'a non-empty string', ''),
    developer_mode: Boolean(expect(raw.developer_mode, (v) => typeof v === 'boolean' || v === 0 || v === 1, 'developer_mode', 'true or false', false)),
    time_zone: expect(
      raw.time_zone,
      (v) => typeof v === 'string' && isValidTimeZone(v),
      'time_zone',
      'an IANA time zone like "Europe/Berlin"',
      DEFAULT_CONFIG.time_zone,
    ),
    session_expiry: expect(raw.session_expiry, positiveInt, 'session_expiry', 'a number of seconds', DEFAULT_CONFIG.session_expiry),
    max_request_size: expect(raw.max_request_size, positiveInt, 'max_request_size', 'a number of bytes', DEFAULT_CONFIG.max_request_size),
    max_file_size: expect(raw.max_file_size, positiveInt, 'max_file_size', 'a number of bytes', DEFAULT_CONFIG.max_file_size),
    allow_consecutive_login_attempts: expect(
      raw.allow_consecutive_login_attempts,
      nonNegativeInt,
      'allow_consecutive_login_attempts',
      'a whole number',
      DEFAULT_CONFIG.allow_consecutive_login_attempts,
    ),
    allow_login_after_fail: expect(
      raw.allow_login_after_fail,
      positiveInt,
      'allow_login_after_fail',
      'a number of seconds',
      DEFAULT_CONFIG.allow_login_after_fail,
    ),
    db_pool_size: expect(raw.db_pool_size, positiveInt, 'db_pool_size', 'a positive whole number', DEFAULT_CONFIG.db_pool_size),
    db_connect_timeout: expect(raw.db_connect_timeout, positiveNumber, 'db_connect_timeout', 'a positive number of seconds', DEFAULT_CONFIG.db_connect_timeout),
    db_statement_timeout: expect(
      raw.db_statement_timeout,
      positiveNumber,
      'db_statement_timeout',
      'a positive number of seconds',
      DEFAULT_CONFIG.db_statement_timeout,
    ),
    db_prepared_statements: Boolean(
      expect(raw.db_prepared_statements, isBoolean, 'db_prepared_statements', 'true or false', DEFAULT_CONFIG.db_prepared_statements),
    ),
    apps: expect(raw.apps, (v) => Array.isArray(v) && v.every((a) => typeof a === 'string'), 'apps', 'a list of module paths', DEFAULT_CONFIG.apps),
    trust_proxy: parseTrustProxy(raw.trust_proxy),
    deny_multiple_sessions: Boolean(
      expect(raw.deny_multiple_sessions, isBoolean, 'deny_multiple_sessions', 'true or false', DEFAULT_CONFIG.deny_multiple_sessions),
    ),
    allow_cors: expect(raw.allow_cors, isCors, 'allow_cors', '"*" or a list of origins like ["https://app.example.com"]', DEFAULT_CONFIG.allow_cors),
    webhook_deny_private_targets: Boolean(
      expect(raw.webhook_deny_private_targets, isBoolean, 'webhook_deny_private_targets', 'true or false', DEFAULT_CONFIG.webhook_deny_private_targets),
    ),
    webhook_allowed_targets: webhookAllowedTargets(raw.webhook_allowed_targets),
    admin_ui: Boolean(expect(raw.admin_ui, isBoolean, 'admin_ui', 'true or false', DEFAULT_CONFIG.admin_ui)),
    enable_password_policy: Boolean(
      expect(raw.enable_password_policy, isBoolean, 'enable_password_policy', 'true or false', DEFAULT_CONFIG.enable_password_policy),
    ),
    minimum_password_score: expect(
      raw.minimum_password_score,
      (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 4,
      'minimum_password_score',
      'a whole number from 1 to 4 (zxcvbn scores: 2 fair, 3 good, 4 strong)',
      DEFAULT_CONFIG.minimum_password_score,
    ),
    maintenance_mode: Boolean(expect(raw.maintenance_mode, isBoolean, 'maintenance_mode', 'true or false', DEFAULT_CONFIG.maintenance_mode)),
    allow_reads_during_maintenance: Boolean(
      expect(raw.allow_reads_during_maintenance, isBoolean, 'allow_reads_during_maintenance', 'true or false', DEFAULT_CONFIG.allow_reads_during_maintenance),
    ),
    metrics_token: expect(
      raw.metrics_token,
      (v) => v === null || (typeof v === 'string' && v.trim().length >= 16 && !/\s/.test(v)),
      'metrics_token',
      'null or a secret of at least 16 characters without spaces',
      DEFAULT_CONFIG.metrics_token,
    ),
    realtime: parseRealtimeConfig(raw, (problem) => {
      throw new SiteConfigError(`site_config.json: ${problem}`);
    }),
    mail: parseMailConfig(raw, (problem) => {
      throw new SiteConfigError(`site_config.json: ${problem}`);
    }),
    file_storage: parseFileStorageConfig(raw.file_storage, (problem) => {
      throw new SiteConfigError(`site_config.json: ${problem}`);
    }),
    trust_site_header: Boolean(expect(raw.trust_site_header, isBoolean, 'trust_site_header', 'true or false', false)),
    db_created_by_fw: Boolean(expect(raw.db_created_by_fw, isBoolean, 'db_created_by_fw', 'true or false', false)),
  };
  if (!config.db_url) throw new SiteConfigError(`${file}: "db_url" is missing`);
  const badUrl = checkDatabaseUrl(config.db_url);
  if (badUrl) throw new SiteConfigError(`${file}: "db_url": ${badUrl}`);
  if (!config.encryption_key) throw new SiteConfigError(`${file}: "encryption_key" is missing`);
  if (options.warn) for (const warning of unknownKeyWarnings(raw, KNOWN_CONFIG_KEYS, file)) options.warn(warning);
  return config;
}

/** Writes a new site's config: database URL, a fresh encryption key, and whether fw created the database. */
export async function writeNewSiteConfig(file: string, dbUrl: string, createdDatabase = false): Promise<void> {
  const config = { db_url: dbUrl, encryption_key: randomBytes(32).toString('base64url'), ...(createdDatabase ? { db_created_by_fw: true } : {}) };
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
}
