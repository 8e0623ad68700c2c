import type { BearerGrant } from '../auth/identity.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { GUEST, type Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import { SecurityException } from '../errors/index.js';
import { type CheckedRequest, checkRequest, issueCode, RedirectedRefusal, withParams } from './authorization.js';
import { authenticateClient, claimedClientId } from './client-auth.js';
import { oauthError } from './oauth-errors.js';
import type { AuthorizationRequest, ClientCredentials, OAuthParts } from './oauth-parts.js';
import { OAuthStore, scopeSet } from './oauth-store.js';
import { SigningKeys } from './signing-keys.js';
import { exchange, type TokenAnswer } from './token-endpoint.js';
import { userClaims } from './user-profile.js';

/** Where the admin UI asks the user to approve a request (ui/src/views/OAuthConsentView.vue). */
export const CONSENT_PATH = '/app/oauth/authorize';

/** The method path prefixes of the provider: fw's own and the reference's (docs/api.md "OAuth provider"). */
export const OAUTH_METHOD_PREFIXES = ['fw.integrations.oauth2.', 'frappe.integrations.oauth2.'] as const;

/** The provider's endpoint URLs below the issuer; discovery names the reference's paths. */
export function endpointUrl(issuer: string, method: string): string {
  return `${issuer}/api/method/frappe.integrations.oauth2.${method}`;
}

/** How `authorize` answers: a redirect to the client, to the consent page or to the login page. */
export type AuthorizeAnswer = { readonly location: string };

/** Requests per minute: per client for failed client authentication, per address for everything. */
const CLIENT_FAILURES = { maxFailures: 10, windowSeconds: 60 };
const ADDRESS_REQUESTS = { maxFailures: 300, windowSeconds: 60 };

/**
 * The OAuth2 / OpenID Connect provider, free of HTTP: the routes of `http/routes/oauth-routes.ts`
 * parse requests into these calls and write their answers (docs/identity.md "fw as an OAuth2 /
 * OpenID Connect provider").
 */
export class OAuthProvider {
  readonly store: OAuthStore;
  readonly keys: SigningKeys;
  readonly #clientThrottle: LoginThrottle;
  readonly #addressThrottle: LoginThrottle;

  constructor(private readonly parts: OAuthParts) {
    this.store = new OAuthStore(parts.documents);
    this.keys = new SigningKeys(parts.documents, parts.encryptionKey);
    this.#clientThrottle = new LoginThrottle(parts.db, CLIENT_FAILURES, { clock: () => this.#nowMs() });
    this.#addressThrottle = new LoginThrottle(parts.db, ADDRESS_REQUESTS, { clock: () => this.#nowMs() });
  }

  #nowMs(): number {
    return this.parts.now?.() ?? Date.now();
  }

  nowSeconds(): number {
    return Math.floor(this.#nowMs() / 1000);
  }

  /**
   * `authorize` (GET): a Guest goes to the login page and comes back to the consent page; a user
   * goes to the consent page, or straight back to the client with a code when the client skips
   * authorization. Refusals about the client or its redirect URI are thrown (shown, never
   * redirected); the others go back to the client's redirect URI.
   */
  async authorize(principal: Principal, params: AuthorizationRequest, query: string, issuer: string): Promise<AuthorizeAnswer> {
    const consent = `${CONSENT_PATH}${query === '' ? '' : `?${query}`}`;
    if (principal.isGuest) {
      // The client must still be known and its redirect URI registered before anyone is sent to log in.
      await this.parts.read(GUEST, (ctx) => this.#check(ctx, principal, params, { redirectErrors: true }));
      return { location: `/login?redirect=${encodeURIComponent(consent)}` };
    }
    return this.parts.write(principal, async (ctx) => {
      const checked = await this.#check(ctx, principal, params, { redirectErrors: true });
      if (checked instanceof RedirectedRefusal) return { location: checked.location };
      if (!checked.client.skipAuthorization) return { location: consent };
      return { location: await issueCode(ctx, this.store, principal.user, checked, this.nowSeconds(), issuer) };
    });
  }

  /** Checks a request; with `redirectErrors`, answers the refusals that go back to the client instead of throwing them. */
  async #check(
    ctx: DocContext,
    principal: Principal,
    params: AuthorizationRequest,
    opts: { redirectErrors: boolean },
  ): Promise<CheckedRequest | RedirectedRefusal> {
    try {
      return await checkRequest(ctx, this.store, principal, params);
    } catch (err) {
      if (opts.redirectErrors && err instanceof RedirectedRefusal) return err;
      if (err instanceof RedirectedRefusal) throw oauthError(err.code as 'invalid_request', err.description);
      throw err;
    }
  }

  /** `consent_info`: what the consent page shows of a request (the application, the scopes, where the answer goes). */
  consentInfo(principal: Principal, params: AuthorizationRequest): Promise<Record<string, unknown>> {
    return this.parts.read(principal, async (ctx) => {
      const checked = await this.#check(ctx, principal, params, { redirectErrors: true });
      if (checked instanceof RedirectedRefusal)
        return { refused: true, redirect_to: checked.location, error: checked.code, error_description: checked.description };
      return {
        app_name: checked.client.appName,
        client_id: checked.client.clientId,
        scopes: checked.scopes,
        redirect_uri: checked.redirectUri,
        skip_authorization: checked.client.skipAuthorization,
      };
    });
  }

  /** `approve`: the user's answer; a code (or `access_denied`) on the way back to the client. */
  approve(ctx: DocContext, principal: Principal, params: AuthorizationRequest, allow: boolean, issuer: string): Promise<string> {
    return (async () => {
      const checked = await this.#check(ctx, principal, params, { redirectErrors: true });
      if (checked instanceof RedirectedRefusal) return checked.location;
      if (!allow) return withParams(checked.redirectUri, { error: 'access_denied', error_description: 'The user denied the request', state: checked.state });
      return issueCode(ctx, this.store, principal.user, checked, this.nowSeconds(), issuer);
    })();
  }

  /** Counts a request of an endpoint that takes a client secret; 429 `slow_down` over the limits. */
  async #throttle(ip: string, credentials: ClientCredentials): Promise<string[]> {
    const clientKey = [`oauth-client:${claimedClientId(credentials).slice(0, 140)}`];
    try {
      await this.#addressThrottle.begin([`oauth-ip:${ip}`]);
      await this.#clientThrottle.begin(clientKey);
    } catch (err) {
      if (err instanceof SecurityException) throw oauthError('slow_down', 'Too many requests; try again in a minute');
      throw err;
    }
    return clientKey;
  }

  /** Clears the failure count of a client that authenticated. */
  async #succeeded(ctx: DocContext, keys: string[]): Promise<void> {
    await this.#clientThrottle.reset(ctx.q, keys);
  }

  /** `get_token` (POST). */
  async token(form: Record<string, string>, credentials: ClientCredentials, ip: string, issuer: string): Promise<TokenAnswer> {
    const keys = await this.#throttle(ip, credentials);
    const outcome = await this.parts.write(GUEST, async (ctx) => {
      const result = await exchange(
        ctx,
        { store: this.store, keys: this.keys, documents: this.parts.documents, nowSeconds: this.nowSeconds(), issuer, encryptionKey: this.parts.encryptionKey },
        form,
        credentials,
      );
      await this.#succeeded(ctx, keys);
      return result;
    });
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.answer;
  }

  /** `revoke_token` (RFC 7009): the token's pair ends; an unknown token is not an error. */
  async revoke(form: Record<string, string>, credentials: ClientCredentials, ip: string): Promise<void> {
    const keys = await this.#throttle(ip, credentials);
    await this.parts.write(GUEST, async (ctx) => {
      const client = await authenticateClient(ctx, this.store, credentials);
      await this.#succeeded(ctx, keys);
      const token = form.token ?? '';
      if (token === '') throw oauthError('invalid_request', 'token is missing');
      const row = (await this.store.tokenBy(ctx, 'access_token', token)) ?? (await this.store.tokenBy(ctx, 'refresh_token', token));
      if (row && row.client === client.clientId) await this.store.revoke(ctx, { name: String(row.name) });
    });
  }

  /** `introspect_token` (RFC 7662): active only for a live token of the asking client. */
  async introspect(form: Record<string, string>, credentials: ClientCredentials, ip: string, issuer: string): Promise<Record<string, unknown>> {
    const keys = await this.#throttle(ip, credentials);
    return this.parts.write(GUEST, async (ctx) => {
      const client = await authenticateClient(ctx, this.store, credentials);
      await this.#succeeded(ctx, keys);
      const token = form.token ?? '';
      const hint = form.token_type_hint === 'refresh_token' ? 'refresh_token' : 'access_token';
      const other = hint === 'access_token' ? 'refresh_token' : 'access_token';
      const found = token === '' ? undefined : ((await this.store.tokenBy(ctx, hint, token)) ?? (await this.store.tokenBy(ctx, other, token)));
      const kind = found && (await this.store.tokenBy(ctx, 'access_token', token)) ? 'access_token' : 'refresh_token';
      const exp = Number(kind === 'access_token' ? found?.expires_at : found?.refresh_expires_at);
      if (!found || found.client !== client.clientId || found.status !== 'Active' || exp <= this.nowSeconds()) return { active: false };
      // With `openid`, the user's claims as userinfo gives them (RFC 7662 2.2 allows more members; the reference adds them).
      const claims = scopeSet(found.scopes).has('openid') ? await userClaims(ctx, this.parts.documents, String(found.user), issuer) : undefined;
      return {
        ...claims,
        active: true,
        client_id: client.clientId,
        scope: String(found.scopes ?? ''),
        sub: String(found.user),
        username: String(found.user),
        token_type: kind === 'access_token' ? 'Bearer' : 'refresh_token',
        exp,
        iss: issuer,
      };
    });
  }

  /** The grant of a live access token, for the Identity service (looked up on every request, never cached). */
  verifyBearer(token: string): Promise<BearerGrant | undefined> {
    if (token.length > 200) return Promise.resolve(undefined);
    return this.parts.read(GUEST, async (ctx) => {
      const row = await this.store.tokenBy(ctx, 'access_token', token);
      if (row?.status !== 'Active' || Number(row?.expires_at) <= this.nowSeconds()) return undefined;
      return { user: String(row.user), scopes: scopeSet(row.scopes) };
    });
  }

  /** `openid_profile` (userinfo): the claims of the token's user; needs the `openid` scope. */
  profile(user: string, scopes: ReadonlySet<string> | undefined, issuer: string): Promise<Record<string, unknown>> {
    if (scopes !== undefined && !scopes.has('openid')) throw oauthError('insufficient_scope', 'The token was not granted the openid scope');
    return this.parts.read(GUEST, async (ctx) => {
      const claims = await userClaims(ctx, this.parts.documents, user, issuer);
      if (!claims) throw oauthError('invalid_token', 'The token user is disabled or gone');
      return claims;
    });
  }

  /** The public keys of the id_tokens still alive (retired keys stay as long as the longest token lifetime). */
  jwks(): Promise<Record<string, unknown>> {
    return this.parts.read(GUEST, async (ctx) => {
      const settings = await this.store.settings(ctx);
      return this.keys.jwks(ctx, this.nowSeconds(), Math.max(settings.idTokenExpiry, settings.accessTokenExpiry));
    });
  }

  /** `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server` (RFC 8414). */
  metadata(issuer: string): Record<string, unknown> {
    return {
      issuer,
      authorization_endpoint: endpointUrl(issuer, 'authorize'),
      token_endpoint: endpointUrl(issuer, 'get_token'),
      userinfo_endpoint: endpointUrl(issuer, 'openid_profile'),
      revocation_endpoint: endpointUrl(issuer, 'revoke_token'),
      introspection_endpoint: endpointUrl(issuer, 'introspect_token'),
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'HS256'],
      scopes_supported: ['openid', 'all'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['sub', 'name', 'given_name', 'family_name', 'email', 'picture', 'roles', 'iss', 'aud', 'exp', 'iat', 'nonce'],
      authorization_response_iss_parameter_supported: true,
    };
  }
}
