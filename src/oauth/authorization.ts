import type { Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import { oauthError } from './oauth-errors.js';
import type { AuthorizationRequest } from './oauth-parts.js';
import { hashSecret, newSecret } from './oauth-secrets.js';
import { type OAuthClient, type OAuthStore, scopeSet } from './oauth-store.js';
import { redirectUriAllowed } from './redirect-uris.js';

/** How long a code may be exchanged (RFC 6749 4.1.2 recommends at most ten minutes). */
export const CODE_LIFETIME_SECONDS = 600;

/** An authorization request found valid. */
export interface CheckedRequest {
  readonly client: OAuthClient;
  /** Where the answer goes: the given redirect_uri, else the client's default. */
  readonly redirectUri: string;
  /** The redirect_uri as given ('' when absent): the token request must repeat it. */
  readonly boundRedirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly nonce: string | undefined;
  readonly codeChallenge: string | undefined;
}

/**
 * A refusal that goes back to the client at its (verified) redirect URI, as RFC 6749 4.1.2.1 asks,
 * rather than to the user.
 */
export class RedirectedRefusal extends Error {
  constructor(
    readonly redirectUri: string,
    readonly code: string,
    readonly description: string,
    readonly state: string | undefined,
  ) {
    super(description);
  }

  /** The redirect URI with `error`, `error_description` and `state`. */
  get location(): string {
    return withParams(this.redirectUri, { error: this.code, error_description: this.description, state: this.state });
  }
}

/** `uri` with `params` added to its query (the undefined ones left out). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Checks an authorization request for `principal`. A bad client or redirect URI is thrown as an
 * OAuth error for the user to see (never redirected: the URI is not trusted); anything else, once
 * the redirect URI is known good, as a {@link RedirectedRefusal}.
 */
export async function checkRequest(ctx: DocContext, store: OAuthStore, principal: Principal, params: AuthorizationRequest): Promise<CheckedRequest> {
  const client = await store.client(ctx, String(params.client_id ?? ''));
  if (!client) throw oauthError('invalid_request', 'Unknown client_id');
  const given = params.redirect_uri ?? '';
  if (given !== '' && !redirectUriAllowed(client.redirectUris, given)) {
    throw oauthError('invalid_request', 'redirect_uri is not one of the URIs registered for this client');
  }
  const redirectUri = given !== '' ? given : client.defaultRedirectUri;
  if (!redirectUriAllowed(client.redirectUris, redirectUri)) throw oauthError('invalid_request', 'The client has no valid redirect URI');
  const refuse = (code: string, description: string) => new RedirectedRefusal(redirectUri, code, description, params.state);

  if (params.response_type !== 'code') throw refuse('unsupported_response_type', 'Only response_type=code is supported');
  const asked = params.scope === undefined || params.scope === '' ? [...client.scopes] : [...scopeSet(params.scope)];
  const extra = asked.filter((s) => !client.scopes.has(s));
  if (extra.length > 0) throw refuse('invalid_scope', `The client may not ask for ${extra.join(', ').slice(0, 200)}`);
  const method = params.code_challenge_method;
  const challenge = params.code_challenge;
  if (method !== undefined && method !== 'S256') throw refuse('invalid_request', 'code_challenge_method must be S256 (plain is refused)');
  if (challenge !== undefined && method === undefined) throw refuse('invalid_request', 'code_challenge_method S256 is required with a code_challenge');
  if (challenge !== undefined && !CHALLENGE.test(challenge)) throw refuse('invalid_request', 'code_challenge is malformed');
  if (challenge === undefined && client.public) throw refuse('invalid_request', 'A public client must send a PKCE code_challenge (S256)');
  if (client.allowedRoles.length > 0 && !principal.isAdministrator && !client.allowedRoles.some((r) => principal.roles.has(r))) {
    throw refuse('access_denied', 'Your roles do not allow you to use this application');
  }
  return {
    client,
    redirectUri,
    boundRedirectUri: given,
    scopes: asked,
    state: params.state,
    nonce: params.nonce,
    codeChallenge: challenge,
  };
}

/** Stores a new code for `user` and answers the redirect that carries it. */
export async function issueCode(
  ctx: DocContext,
  store: OAuthStore,
  user: string,
  request: CheckedRequest,
  nowSeconds: number,
  issuer: string,
): Promise<string> {
  const code = newSecret();
  await store.insertCode(ctx, {
    client: request.client.clientId,
    user,
    scopes: request.scopes.join(' '),
    authorization_code: hashSecret(code),
    expires_at: nowSeconds + CODE_LIFETIME_SECONDS,
    redirect_uri_bound_to_authorization_code: request.boundRedirectUri,
    validity: 'Valid',
    nonce: request.nonce ?? '',
    code_challenge: request.codeChallenge ?? '',
    code_challenge_method: request.codeChallenge ? 's256' : '',
  });
  // `iss` lets the client tell which server answered (RFC 9207).
  return withParams(request.redirectUri, { code, state: request.state, iss: issuer });
}
