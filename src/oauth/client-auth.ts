import type { DocContext } from '../documents/doc-context.js';
import { oauthError } from './oauth-errors.js';
import type { ClientCredentials } from './oauth-parts.js';
import { secretMatches } from './oauth-secrets.js';
import type { OAuthClient, OAuthStore } from './oauth-store.js';

/** The client id the credentials name, before they are checked (the throttle's key). */
export function claimedClientId(credentials: ClientCredentials): string {
  return credentials.basic?.clientId ?? credentials.clientId ?? '';
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 2.3):
 * `client_secret_basic` or `client_secret_post` for confidential clients, the bare `client_id` for
 * public ones (`token_endpoint_auth_method` None). The secret is compared with its stored hash in
 * constant time; every failure is the same 401 `invalid_client`, so nothing tells which part was wrong.
 */
export async function authenticateClient(ctx: DocContext, store: OAuthStore, credentials: ClientCredentials): Promise<OAuthClient> {
  const fail = () => oauthError('invalid_client', 'Client authentication failed');
  const { basic } = credentials;
  if (basic && credentials.clientId !== undefined && credentials.clientId !== basic.clientId) throw fail();
  if (basic && credentials.secret !== undefined) throw oauthError('invalid_request', 'Use one way of client authentication, not two');
  const clientId = claimedClientId(credentials);
  const client = await store.client(ctx, clientId);
  const secret = basic?.secret ?? credentials.secret;
  if (!client) {
    // The same work as for a known client, so timing does not tell client ids apart.
    secretMatches(secret ?? '', '0'.repeat(64));
    throw fail();
  }
  if (client.public) {
    if (secret !== undefined && secret !== '') throw fail();
    return client;
  }
  if (secret === undefined || !secretMatches(secret, client.secretHash)) throw fail();
  return client;
}
