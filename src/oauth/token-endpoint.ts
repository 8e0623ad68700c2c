import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { FwError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { authenticateClient } from './client-auth.js';
import { secretCopy } from './client-secret-copy.js';
import { oauthError } from './oauth-errors.js';
import type { ClientCredentials } from './oauth-parts.js';
import { hashSecret, newSecret, pkceMatches } from './oauth-secrets.js';
import { type OAuthClient, type OAuthStore, scopeSet } from './oauth-store.js';
import type { SigningKeys } from './signing-keys.js';
import { userClaims } from './user-profile.js';

/** The answer of a successful token request (RFC 6749 5.1, OpenID Connect 3.1.3.3). */
export interface TokenAnswer {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
  readonly id_token?: string;
}

/**
 * A token request's outcome: tokens, or a refusal whose own writes must be kept (the revocation of
 * a token family when a code or refresh token is reused), thrown by the caller after the commit.
 */
export type TokenOutcome = { readonly answer: TokenAnswer } | { readonly refusal: FwError };

/** What the token endpoint works with. */
export interface TokenDeps {
  readonly store: OAuthStore;
  readonly keys: SigningKeys;
  readonly documents: DocumentService;
  readonly nowSeconds: number;
  readonly issuer: string;
  /** The site's `encryption_key`, which opens the secret copy of an HS256 client. */
  readonly encryptionKey: string;
}

/** `get_token`: the authorization_code and refresh_token grants; others are `unsupported_grant_type`. */
export async function exchange(ctx: DocContext, deps: TokenDeps, form: Record<string, string>, credentials: ClientCredentials): Promise<TokenOutcome> {
  const grant = form.grant_type;
  if (grant !== 'authorization_code' && grant !== 'refresh_token') {
    throw oauthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }
  const client = await authenticateClient(ctx, deps.store, credentials);
  return grant === 'authorization_code' ? codeGrant(ctx, deps, client, form) : refreshGrant(ctx, deps, client, form);
}

async function codeGrant(ctx: DocContext, deps: TokenDeps, client: OAuthClient, form: Record<string, string>): Promise<TokenOutcome> {
  const invalid = (why: string) => oauthError('invalid_grant', why);
  if (!form.code) throw oauthError('invalid_request', 'code is missing');
  const taken = await deps.store.takeCode(ctx, form.code);
  if (!taken || taken.row.client !== client.clientId) throw invalid('The code is unknown or belongs to another client');
  const row = taken.row;
  if (taken.used) {
    // A code used twice was stolen or replayed: the tokens it gave are revoked (RFC 6749 4.1.2).
    await deps.store.revoke(ctx, { family: String(row.name) });
    return { refusal: invalid('The code was already used; the tokens it gave are revoked') };
  }
  if (Number(row.expires_at) <= deps.nowSeconds) throw invalid('The code has expired');
  const bound = String(row.redirect_uri_bound_to_authorization_code ?? '');
  const given = form.redirect_uri ?? '';
  if (given !== bound && !(bound === '' && given !== '' && given === client.defaultRedirectUri)) {
    throw invalid('redirect_uri does not match the authorization request');
  }
  const challenge = String(row.code_challenge ?? '');
  const verifier = form.code_verifier;
  if (challenge !== '' && (verifier === undefined || !pkceMatches(verifier, challenge))) throw invalid('code_verifier does not match the code_challenge');
  if (challenge === '' && verifier !== undefined) throw invalid('code_verifier given but the authorization request had no code_challenge');
  const scopes = String(row.scopes ?? '');
  const answer = await issueTokens(ctx, deps, client, String(row.user), scopes, String(row.name), String(row.nonce ?? ''));
  return { answer };
}

async function refreshGrant(ctx: DocContext, deps: TokenDeps, client: OAuthClient, form: Record<string, string>): Promise<TokenOutcome> {
  const invalid = (why: string) => oauthError('invalid_grant', why);
  if (!form.refresh_token) throw oauthError('invalid_request', 'refresh_token is missing');
  const row = await deps.store.tokenBy(ctx, 'refresh_token', form.refresh_token);
  if (!row || row.client !== client.clientId) throw invalid('The refresh token is unknown or belongs to another client');
  const family = String(row.family);
  // A rotated (or revoked) refresh token used again: whoever holds the newer one may be a thief, so the whole family ends.
  const reuse = async (): Promise<TokenOutcome> => {
    await deps.store.revoke(ctx, { family });
    return { refusal: invalid('The refresh token was already used; its tokens are revoked') };
  };
  if (row.status !== 'Active') return reuse();
  if (Number(row.refresh_expires_at) <= deps.nowSeconds) throw invalid('The refresh token has expired');
  const granted = scopeSet(row.scopes);
  const asked = form.scope ? [...scopeSet(form.scope)] : [...granted];
  if (asked.some((s) => !granted.has(s))) throw oauthError('invalid_scope', 'A refresh cannot widen the scopes granted');
  if (!(await deps.store.retire(ctx, String(row.name)))) return reuse();
  return { answer: await issueTokens(ctx, deps, client, String(row.user), asked.join(' '), family, '') };
}

/** A new access and refresh token pair (stored as hashes), with an id_token when `openid` was granted. */
async function issueTokens(
  ctx: DocContext,
  deps: TokenDeps,
  client: OAuthClient,
  user: string,
  scopes: string,
  family: string,
  nonce: string,
): Promise<TokenAnswer> {
  const settings = await deps.store.settings(ctx);
  const claims = await userClaims(ctx, deps.documents, user, deps.issuer);
  if (!claims) throw oauthError('invalid_grant', 'The user of this grant is disabled or gone');
  const accessToken = newSecret();
  const refreshToken = newSecret();
  const values: Doc = {
    client: client.clientId,
    user,
    scopes,
    access_token: hashSecret(accessToken),
    refresh_token: hashSecret(refreshToken),
    expires_in: settings.accessTokenExpiry,
    expires_at: deps.nowSeconds + settings.accessTokenExpiry,
    refresh_expires_at: deps.nowSeconds + settings.refreshTokenExpiry,
    family,
    status: 'Active',
  };
  await deps.store.insertToken(ctx, values);
  const answer: TokenAnswer = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: settings.accessTokenExpiry,
    refresh_token: refreshToken,
    scope: scopes,
  };
  if (!scopeSet(scopes).has('openid')) return answer;
  const idClaims = {
    ...claims,
    aud: client.clientId,
    iat: deps.nowSeconds,
    exp: deps.nowSeconds + settings.idTokenExpiry,
    ...(nonce !== '' ? { nonce } : {}),
  };
  return { ...answer, id_token: await signIdToken(ctx, deps, client, idClaims) };
}

/** An id_token signed as the client chose: RS256 with the site's key, or HS256 with its secret (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"). */
async function signIdToken(ctx: DocContext, deps: TokenDeps, client: OAuthClient, claims: Record<string, unknown>): Promise<string> {
  if (client.idTokenAlg !== 'HS256') return deps.keys.sign(ctx, claims);
  const secret = await secretCopy(ctx, client.clientId, deps.encryptionKey);
  // An HS256 client always has the copy (kept at registration); a missing one is the server's fault.
  if (secret === undefined) throw new FwError(`OAuth Client ${client.clientId} signs HS256 but its secret copy is missing`);
  return deps.keys.signWithSecret(claims, secret);
}
