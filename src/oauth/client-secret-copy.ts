import { deleteFieldSecrets, getFieldSecret, saveFieldSecret } from '../auth/field-secrets.js';
import type { DocContext } from '../documents/doc-context.js';
import { OAUTH_CLIENT } from './doctypes/index.js';

/*
 * The encrypted copy of an HS256 client's secret (docs/security.md "OAuth provider secrets and
 * keys"): HS256 id_tokens are signed with the secret itself, which the SHA-256 kept for client
 * authentication cannot give back. The copy lives in `__Auth` (AES-256-GCM with the site's
 * `encryption_key`, as Password fields do) and exists only for clients that chose HS256.
 */

const ref = (clientId: string) => ({ doctype: OAUTH_CLIENT, name: clientId, fieldname: 'client_secret' });

/** Keeps the secret of an HS256 client encrypted, in the caller's transaction. */
export function saveSecretCopy(ctx: DocContext, clientId: string, secret: string, encryptionKey: string): Promise<void> {
  return saveFieldSecret(ctx.q, ctx.dialect, ref(clientId), secret, encryptionKey);
}

/** The secret of an HS256 client, or undefined when no copy is kept. */
export function secretCopy(ctx: DocContext, clientId: string, encryptionKey: string): Promise<string | undefined> {
  return getFieldSecret(ctx.q, ctx.dialect, ref(clientId), encryptionKey);
}

/** Forgets the copy (a client deleted, or switched back to RS256). */
export async function dropSecretCopy(ctx: DocContext, clientId: string): Promise<void> {
  await deleteFieldSecrets(ctx.q, ctx.dialect, OAUTH_CLIENT, clientId);
}
