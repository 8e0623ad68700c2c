import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { dropSecretCopy, saveSecretCopy } from './client-secret-copy.js';
import { OAUTH_CLIENT } from './doctypes/index.js';
import { hashSecret, newSecret } from './oauth-secrets.js';
import { scopeSet } from './oauth-store.js';
import { parseRedirectUris, redirectUriProblem } from './redirect-uris.js';

/**
 * The OAuth Client's behaviour: a random `client_id` (the document's name) and, for a confidential
 * client, a secret of 32 random bytes stored as its SHA-256 (and, for an HS256 client only, also
 * encrypted with the site's key). The secret is put into the document in memory at the very end of
 * the insert, so it appears in the answer that creates the client and nowhere else
 * (docs/security.md "OAuth provider secrets and keys").
 */
export function registerOAuthClientController(hooks: HookRegistry, encryptionKey: string): void {
  const fresh = new WeakMap<object, string>();

  hooks.on(OAUTH_CLIENT, 'before_insert', async ({ doc }, next) => {
    doc.client_id = newSecret(15);
    if (doc.token_endpoint_auth_method === 'None') doc.client_secret = '';
    else {
      const secret = newSecret(32);
      fresh.set(doc, secret);
      doc.client_secret = hashSecret(secret);
    }
    await next();
  });

  hooks.on(OAUTH_CLIENT, 'before_validate', async ({ doc, before, ctx }, next) => {
    if (!doc.id_token_signed_response_alg) doc.id_token_signed_response_alg = 'RS256';
    checkClient(doc);
    if (before) {
      // The stored hash never changes by a save; a new secret needs a new client.
      doc.client_secret = before.client_secret;
      doc.client_id = before.client_id;
      if (doc.token_endpoint_auth_method !== 'None' && !doc.client_secret) {
        throw new ValidationError('A public client cannot become confidential: it has no secret. Register a new client instead.');
      }
      if (doc.token_endpoint_auth_method === 'None') doc.client_secret = '';
      const wasHs256 = before.id_token_signed_response_alg === 'HS256';
      if (doc.id_token_signed_response_alg === 'HS256' && !wasHs256) {
        // Only the hash of an existing client's secret is kept, and HS256 signs with the secret itself.
        throw new ValidationError(
          'ID Token Signing Algorithm: HS256 can only be chosen when the client is registered (fw keeps only a hash of an existing secret). Register a new client with HS256.',
        );
      }
      if (wasHs256 && doc.id_token_signed_response_alg !== 'HS256') await dropSecretCopy(ctx, String(before.name));
    }
    await next();
  });

  hooks.on(OAUTH_CLIENT, 'after_insert', async ({ doc, ctx }, next) => {
    const secret = fresh.get(doc);
    if (doc.id_token_signed_response_alg === 'HS256' && secret !== undefined) await saveSecretCopy(ctx, String(doc.name), secret, encryptionKey);
    await next();
  });

  hooks.on(OAUTH_CLIENT, 'on_trash', async ({ doc, ctx }, next) => {
    await dropSecretCopy(ctx, String(doc.name));
    await next();
  });

  hooks.on(OAUTH_CLIENT, 'on_change', async ({ doc, before }, next) => {
    await next();
    const secret = fresh.get(doc);
    if (before === undefined && secret !== undefined) doc.client_secret = secret;
  });
}

/** Refuses redirect URIs that are not absolute, carry a fragment or use plain http beyond loopback, and unknown values. */
function checkClient(doc: Doc): void {
  const uris = parseRedirectUris(doc.redirect_uris);
  if (uris.length === 0) throw new ValidationError('Redirect URIs: at least one is required');
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ValidationError(`Redirect URIs: ${problem}`);
  }
  if (!uris.includes(String(doc.default_redirect_uri ?? ''))) throw new ValidationError('Default Redirect URI must be one of the Redirect URIs');
  if (scopeSet(doc.scopes).size === 0) throw new ValidationError('Scopes: at least one is required');
  if (doc.id_token_signed_response_alg === 'HS256' && doc.token_endpoint_auth_method === 'None') {
    throw new ValidationError(
      'ID Token Signing Algorithm: a public client (Token Endpoint Auth Method None) has no secret, so it cannot use HS256; choose RS256',
    );
  }
}
