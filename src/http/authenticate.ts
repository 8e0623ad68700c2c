import type { FastifyRequest } from 'fastify';
import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import type { Authenticated, Credentials, IdentityHolder } from '../auth/identity.js';
import { PermissionError } from '../errors/index.js';

export type { Authenticated, Credentials } from '../auth/identity.js';

/**
 * The request's credentials for the Identity service (src/auth/identity.ts): the Authorization
 * header, else a `sid` parameter, which wins over the cookie as in the reference.
 */
export function requestCredentials(req: FastifyRequest, parameter = sidParameter(req)): Credentials {
  const cookies = req.headers.cookie;
  return {
    authorization: req.headers.authorization,
    sid: () => parameter ?? (cookies ? req.server.parseCookie(cookies).sid : undefined),
  };
}

/**
 * Resolves the request's principal through the site's Identity service; a session taken from a
 * `sid` parameter is marked, since it needs no CSRF check.
 */
export function authenticate(site: IdentityHolder, req: FastifyRequest): MaybePromise<Authenticated> {
  const parameter = sidParameter(req);
  const result = site.identity.authenticate(requestCredentials(req, parameter));
  return andThen(result, (r) => {
    if (r.scopes !== undefined && !r.scopes.has(API_SCOPE)) throw insufficientScope();
    return parameter !== undefined && r.sid !== undefined ? { ...r, sidFromParameter: true } : r;
  });
}

/** The scope an OAuth bearer token needs for /api (the reference's `all`); `openid` alone reads only the profile. */
const API_SCOPE = 'all';

function insufficientScope(): PermissionError {
  return new PermissionError(`This bearer token was not granted the "${API_SCOPE}" scope, which the API needs`, {
    details: { oauthError: 'insufficient_scope', oauthStatus: 403 },
  });
}

/** The `sid` of the query string, or of a form or JSON body (docs/api.md "Authentication"). */
function sidParameter(req: FastifyRequest): string | undefined {
  const pick = (source: unknown): string | undefined => {
    if (source === null || typeof source !== 'object' || Array.isArray(source)) return undefined;
    const raw = (source as Record<string, unknown>).sid;
    const value = Array.isArray(raw) ? raw[0] : raw;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return pick(req.query) ?? pick(req.body);
}
