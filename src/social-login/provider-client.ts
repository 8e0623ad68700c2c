import type * as Oidc from 'openid-client';
import { AuthenticationError } from '../errors/index.js';
import { discoveryUrl } from './provider-presets.js';
import type { SocialLoginKey } from './social-login-key-row.js';

/** Who the provider says signed in: its stable id of the account and the profile fw may use. */
export interface ProviderIdentity {
  readonly subject: string;
  readonly email: string | undefined;
  /** True only when the provider itself says the address is verified. */
  readonly emailVerified: boolean;
  readonly firstName: string | undefined;
  readonly lastName: string | undefined;
  readonly username: string | undefined;
}

/** The checks the callback holds the provider's answer to (docs/identity.md "Single sign-on"). */
export interface CallbackChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/**
 * Plain http is allowed only to a provider on this machine (a test or development IdP on
 * 127.0.0.1); anything else must be https.
 */
export function isLoopbackHttp(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

function refused(message: string): AuthenticationError {
  return new AuthenticationError(message, { details: { responseMessage: message } });
}

/**
 * openid-client Configurations by key and its `modified`: discovery and the provider's JWKS are
 * fetched once per saved version of a key, not per login.
 */
export class ProviderClients {
  readonly #configs = new Map<string, Promise<Oidc.Configuration>>();

  configuration(key: SocialLoginKey, secret: string): Promise<Oidc.Configuration> {
    const cacheKey = `${key.name}\u0000${key.modified}`;
    let config = this.#configs.get(cacheKey);
    if (!config) {
      config = buildConfiguration(key, secret);
      this.#configs.set(cacheKey, config);
      // A failed discovery is retried by the next login, not remembered.
      config.catch(() => this.#configs.delete(cacheKey));
    }
    return config;
  }
}

/**
 * openid-client, imported by the first social login (docs/benchmarks.md "Modules loaded on first use");
 * later calls find it in the module cache.
 */
function openidClient(): Promise<typeof Oidc> {
  return import('openid-client');
}

async function buildConfiguration(key: SocialLoginKey, secret: string): Promise<Oidc.Configuration> {
  const oidc = await openidClient();
  const auth = secret === '' ? oidc.None() : oidc.ClientSecretPost(secret);
  if (key.protocol === 'oidc') {
    const where = discoveryUrl(key.baseUrl, key.openidConfiguration);
    const execute = isLoopbackHttp(where) ? [oidc.allowInsecureRequests] : [];
    let config: Oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(where), key.clientId, undefined, auth, { execute });
    } catch (err) {
      throw refused(`The identity provider ${key.name} cannot be reached or its discovery document is invalid (${errorText(err)})`);
    }
    // id_token signatures are verified against the issuer's JWKS, not only trusted from TLS.
    oidc.enableNonRepudiationChecks(config);
    return config;
  }
  const config = new oidc.Configuration(
    { issuer: new URL(key.authorizeUrl).origin, authorization_endpoint: key.authorizeUrl, token_endpoint: key.accessTokenUrl },
    key.clientId,
    undefined,
    auth,
  );
  if (isLoopbackHttp(key.authorizeUrl)) oidc.allowInsecureRequests(config);
  return config;
}

function errorText(err: unknown): string {
  const e = err as { message?: unknown; error?: unknown; error_description?: unknown; cause?: { message?: unknown } };
  // openid-client wraps oauth4webapi's error, whose message names the check that failed (the id_token's nonce, aud, iss).
  const detail = e.cause instanceof Error ? e.cause.message : undefined;
  const parts = [e.error, e.error_description, e.message, detail].filter((p): p is string => typeof p === 'string' && p !== '');
  return (parts[0] === undefined ? 'unknown error' : [...new Set(parts)].join(': ')).slice(0, 300);
}

/** The provider's sign-in page for one login: PKCE S256, `state`, and (OpenID Connect) `nonce`. */
export async function authorizationUrl(config: Oidc.Configuration, key: SocialLoginKey, redirectUri: string, checks: CallbackChecks): Promise<string> {
  const oidc = await openidClient();
  const params: Record<string, string> = {
    ...key.authParams,
    redirect_uri: redirectUri,
    response_type: 'code',
    state: checks.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
  };
  if (key.protocol === 'oidc') params.nonce = checks.nonce;
  return oidc.buildAuthorizationUrl(config, params).href;
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Redeems the code of the provider's answer (`callbackUrl`, holding `code`, `state` and maybe
 * `iss`) and reads who signed in. OpenID Connect: the id_token's signature (JWKS), `iss`, `aud`,
 * `exp` and `nonce` are checked by openid-client; the profile comes from its claims and userinfo.
 * OAuth 2: the profile comes from the key's API endpoint. Any failure is a 401 naming the cause.
 */
export async function redeemCode(config: Oidc.Configuration, key: SocialLoginKey, callbackUrl: URL, checks: CallbackChecks): Promise<ProviderIdentity> {
  const oidc = await openidClient();
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      ...(key.protocol === 'oidc' ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
    });
    let profile: Record<string, unknown>;
    if (key.protocol === 'oidc') {
      const claims = tokens.claims();
      if (!claims) throw refused('The identity provider sent no id_token');
      profile = { ...claims };
      if (profile.email === undefined && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        profile = { ...info, ...claims };
      }
    } else {
      profile = await fetchProfile(config, key, tokens.access_token);
    }
    const subject = str(profile[key.userIdProperty]);
    if (subject === undefined) throw refused(`The identity provider's profile has no ${key.userIdProperty}`);
    const email = str(profile.email)?.toLowerCase();
    return {
      subject,
      email,
      emailVerified: email !== undefined && (profile.email_verified === true || profile.verified_email === true),
      firstName: str(profile.given_name) ?? str(profile.first_name) ?? str(profile.name) ?? str(profile.login),
      lastName: str(profile.family_name) ?? str(profile.last_name),
      username: str(profile.preferred_username) ?? str(profile.login) ?? str(profile.username),
    };
  } catch (err) {
    if (err instanceof AuthenticationError) throw err;
    throw refused(`The identity provider's answer was refused: ${errorText(err)}`);
  }
}

/** The profile of a plain OAuth 2 provider; GitHub's verified primary address comes from /user/emails. */
async function fetchProfile(config: Oidc.Configuration, key: SocialLoginKey, accessToken: string): Promise<Record<string, unknown>> {
  const oidc = await openidClient();
  const read = async (url: string): Promise<unknown> => {
    const answer = await oidc.fetchProtectedResource(config, accessToken, new URL(url), 'GET', undefined, new Headers({ accept: 'application/json' }));
    if (!answer.ok) throw refused(`The identity provider's profile endpoint answered ${answer.status}`);
    return answer.json();
  };
  const profile = (await read(key.apiEndpoint)) as Record<string, unknown>;
  if (key.preset === 'GitHub') {
    const emails = (await read(new URL('/user/emails', key.apiEndpoint).href)) as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>;
    const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true) : undefined;
    return { ...profile, email: primary?.email, email_verified: primary?.verified === true };
  }
  return profile;
}
