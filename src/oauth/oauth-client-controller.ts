import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { OAUTH_CLIENT } from './doctypes/index.js';
import { hashSecret, newSecret } from './oauth-secrets.js';
import { scopeSet } from './oauth-store.js';
import { parseRedirectUris, redirectUriProblem } from './redirect-uris.js';

/**
 * The OAuth Client's behaviour: a random `client_id` (the document's name) and, for a confidential
 * client, a secret of 32 random bytes stored only as its SHA-256. The secret is put into the
 * document in memory at the very end of the insert, so it appears in the answer that creates the
 * client and nowhere else (docs/security.md "OAuth provider secrets and keys").
 */
export function registerOAuthClientController(hooks: HookRegistry): void {
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

  hooks.on(OAUTH_CLIENT, 'before_validate', async ({ doc, before }, next) => {
    checkClient(doc);
    if (before) {
      // The stored hash never changes by a save; a new secret needs a new client.
      doc.client_secret = before.client_secret;
      doc.client_id = before.client_id;
      if (doc.token_endpoint_auth_method !== 'None' && !doc.client_secret) {
        throw new ValidationError('A public client cannot become confidential: it has no secret. Register a new client instead.');
      }
      if (doc.token_endpoint_auth_method === 'None') doc.client_secret = '';
    }
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
}
