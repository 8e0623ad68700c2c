import { loadPrincipal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';

/** The OpenID claims of a user (`openid_profile`, the reference's shape), or undefined when the user is gone or disabled. */
export async function userClaims(ctx: DocContext, documents: DocumentService, user: string, issuer: string): Promise<Record<string, unknown> | undefined> {
  const doc = await documents.load(ctx, 'User', user);
  if (!doc || doc.enabled === 0) return undefined;
  const principal = await loadPrincipal(ctx.q, ctx.dialect, user);
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const claims: Record<string, unknown> = {
    sub: user,
    name: text(doc.full_name) ?? user,
    given_name: text(doc.first_name),
    family_name: text(doc.last_name),
    email: text(doc.email),
    picture: text(doc.user_image),
    roles: principal ? [...principal.roles].sort() : [],
    iss: issuer,
  };
  for (const key of Object.keys(claims)) if (claims[key] === undefined) delete claims[key];
  return claims;
}
