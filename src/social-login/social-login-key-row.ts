import { getFieldSecret } from '../auth/field-secrets.js';
import { DoesNotExistError } from '../errors/index.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { SOCIAL_LOGIN_KEY } from './doctypes/index.js';
import { PROVIDER_PRESETS, providerSlug, type ProviderProtocol } from './provider-presets.js';

/** A Social Login Key as the login flow reads it (never through the API: the secret stays inside). */
export interface SocialLoginKey {
  readonly name: string;
  readonly slug: string;
  readonly preset: string;
  readonly protocol: ProviderProtocol;
  readonly enabled: boolean;
  readonly clientId: string;
  readonly baseUrl: string;
  readonly openidConfiguration: string;
  readonly authorizeUrl: string;
  readonly accessTokenUrl: string;
  readonly apiEndpoint: string;
  /** Extra authorization parameters (`auth_url_data`), `scope` among them. */
  readonly authParams: Readonly<Record<string, string>>;
  readonly userIdProperty: string;
  /** `Allow`, `Deny`, or '' (System Settings decide). */
  readonly signUps: string;
  readonly icon: string;
  readonly redirectPath: string;
  /** Changes whenever the key is saved: the provider cache's key. */
  readonly modified: string;
}

/** The default callback path of a provider (`redirect_url`), registered at the provider. */
export function callbackPath(slug: string): string {
  return `/api/method/fw.integrations.oauth2_logins.custom/${slug}`;
}

/** Providers with the reference's fixed callback aliases (`login_via_<provider>`). */
export const ALIASED_PROVIDERS: readonly string[] = [
  'google',
  'github',
  'gitlab',
  'microsoft',
  'office_365',
  'facebook',
  'frappe',
  'salesforce',
  'fairlogin',
  'keycloak',
  'authentik',
  'okta',
];

/**
 * Every callback path that reaches the key called `slug`: `custom/<slug>` under `fw.` and
 * `frappe.`, and for the reference's providers its `login_via_<slug>` paths, so a provider
 * registration made for the reference keeps working (docs/identity.md "Single sign-on").
 */
export function callbackPaths(slug: string): string[] {
  const paths = ['fw', 'frappe'].map((root) => `/api/method/${root}.integrations.oauth2_logins.custom/${slug}`);
  if (ALIASED_PROVIDERS.includes(slug)) {
    for (const root of ['fw', 'frappe']) {
      paths.push(`/api/method/${root}.integrations.oauth2_logins.login_via_${slug}`, `/api/method/${root}.www.login.login_via_${slug}`);
    }
  }
  return paths;
}

/** The protocol a key speaks: its preset's, and for Custom OpenID Connect when it names a discovery URL. */
export function protocolOf(preset: string, openidConfiguration: string): ProviderProtocol {
  return PROVIDER_PRESETS[preset]?.protocol ?? (openidConfiguration ? 'oidc' : 'oauth2');
}

function text(row: Row, field: string): string {
  const value = row[field];
  return value === null || value === undefined ? '' : String(value).trim();
}

/** `auth_url_data` as string parameters (validated when the key was saved). */
export function parseAuthParams(json: string): Record<string, string> {
  if (json === '') return {};
  const value = JSON.parse(json) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

function keyOf(row: Row): SocialLoginKey {
  const preset = text(row, 'social_login_provider') || 'Custom';
  const openidConfiguration = text(row, 'openid_configuration');
  const name = text(row, 'name');
  const defaults = PROVIDER_PRESETS[preset];
  const authParams = parseAuthParams(text(row, 'auth_url_data'));
  if (!authParams.scope && defaults) authParams.scope = defaults.scope;
  return {
    name,
    slug: providerSlug(name),
    preset,
    protocol: protocolOf(preset, openidConfiguration),
    enabled: Number(row.enable_social_login) === 1,
    clientId: text(row, 'client_id'),
    baseUrl: text(row, 'base_url'),
    openidConfiguration,
    authorizeUrl: text(row, 'authorize_url'),
    accessTokenUrl: text(row, 'access_token_url'),
    apiEndpoint: text(row, 'api_endpoint'),
    authParams,
    userIdProperty: text(row, 'user_id_property') || defaults?.userIdProperty || 'sub',
    signUps: text(row, 'sign_ups'),
    icon: text(row, 'icon'),
    redirectPath: text(row, 'redirect_url') || callbackPath(providerSlug(name)),
    modified: text(row, 'modified'),
  };
}

const COLUMNS = [
  'name',
  'modified',
  'enable_social_login',
  'social_login_provider',
  'client_id',
  'base_url',
  'openid_configuration',
  'authorize_url',
  'access_token_url',
  'api_endpoint',
  'auth_url_data',
  'user_id_property',
  'sign_ups',
  'icon',
  'redirect_url',
] as const;

const TABLE = `tab${SOCIAL_LOGIN_KEY}`;

/** Every key, enabled or not, in name order. */
export async function readSocialLoginKeys(q: Queryable, dialect: Dialect): Promise<SocialLoginKey[]> {
  const rows = await q.all<Row>(
    dialect.builder
      .selectFrom(TABLE)
      .select([...COLUMNS])
      .orderBy('name')
      .compile(),
  );
  return rows.map(keyOf);
}

/**
 * The enabled key a URL names, by its slug (`custom/company_sso`, `login_via_google`). Unknown
 * and disabled keys are one answer, so the URL tells nothing about keys an administrator turned off.
 */
export async function enabledKeyBySlug(q: Queryable, dialect: Dialect, slug: string): Promise<SocialLoginKey> {
  const wanted = providerSlug(slug);
  const key = (await readSocialLoginKeys(q, dialect)).find((k) => k.slug === wanted && k.enabled);
  if (!key) throw new DoesNotExistError(`No enabled social login provider named ${slug.slice(0, 60)}`);
  return key;
}

/** The key's client secret, decrypted ('' when none is stored: a public client). */
export async function clientSecretOf(q: Queryable, dialect: Dialect, key: SocialLoginKey, encryptionKey: string): Promise<string> {
  return (await getFieldSecret(q, dialect, { doctype: SOCIAL_LOGIN_KEY, name: key.name, fieldname: 'client_secret' }, encryptionKey)) ?? '';
}
