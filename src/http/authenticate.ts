import type { FastifyRequest } from 'fastify';
import { verifyApiToken } from '../auth/api-keys.js';
import { GUEST, loadPrincipal, withUserPermissions, type Principal } from '../auth/principal.js';
import { AuthenticationError } from '../errors/index.js';
import { loadUserPermissions } from '../documents/permission-rows.js';
import { statementReader } from '../storage/statement-reader.js';
import { siteSettings } from '../site/site-settings.js';
import type { Site } from '../site/site.js';
import { parseAuthorizationHeader } from './authorization-header.js';

/** Who a request acts as, and the live session it came with (if any). */
export interface Authenticated {
  readonly principal: Principal;
  readonly sid: string | undefined;
  /** The session's CSRF token when the request came with a session that was issued one. */
  readonly csrfToken?: string | null;
  /**
   * True when the session came from a `sid` request parameter rather than the cookie: a browser
   * never adds a parameter on its own, so such a request needs no CSRF check (docs/security.md).
   */
  readonly sidFromParameter?: boolean;
}

/**
 * The principal of an authenticated user with their User Permission rules, from the site's
 * short-lived cache or else from the database; undefined when the user is missing or disabled.
 */
export function resolvePrincipal(site: Site, user: string): Principal | undefined | Promise<Principal | undefined> {
  // A hit is answered without a promise: this runs on every authenticated request.
  return (
    site.principals.get(user) ??
    site.principals.resolve(user, () =>
      site.db.read(async (q) => {
        const principal = await loadPrincipal(q, site.db.dialect, user);
        if (!principal || principal.isGuest || principal.isAdministrator) return principal;
        return withUserPermissions(principal, await loadUserPermissions(q, site.db.dialect, principal.user));
      }),
    )
  );
}

/**
 * The user an Authorization header's token names, verified against the database (and then
 * cached); null when it names nobody, undefined when the header carries no token. A scheme other
 * than token or Basic is a 401.
 */
async function tokenUser(site: Site, credentials: string | undefined): Promise<string | null | undefined> {
  const header = parseAuthorizationHeader(credentials);
  if (header.kind === 'unsupported') throw new AuthenticationError('Unsupported authorization');
  if (header.kind === 'none') return undefined;
  const user = await verifyApiToken(statementReader(site.db), site.db.dialect, header.apiKey, header.apiSecret);
  if (user === undefined) return null;
  site.tokenCache.set(credentials as string, user);
  return user;
}

/** The credentials a request (or a realtime handshake) presents. */
export interface Credentials {
  /** The Authorization header's value. */
  readonly authorization: string | undefined;
  /** The `sid` cookie's value, asked for only when no header decides. */
  sid(): string | undefined;
}

/**
 * Resolves the request's principal: an Authorization header (`token key:secret`, `Basic ...`)
 * first, stateless; else the `sid` cookie's session; else Guest. An unknown or ended `sid` makes
 * a Guest request, not an error. A header that authenticates nobody is a 401.
 */
export async function authenticate(site: Site, req: FastifyRequest): Promise<Authenticated> {
  const cookies = req.headers.cookie;
  const parameter = sidParameter(req);
  const result = await authenticateCredentials(site, {
    authorization: req.headers.authorization,
    // A `sid` parameter wins over the cookie, as in the reference; an unknown one is Guest.
    sid: () => parameter ?? (cookies ? req.server.parseCookie(cookies).sid : undefined),
  });
  return parameter !== undefined && result.sid !== undefined ? { ...result, sidFromParameter: true } : result;
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

/** {@link authenticate} for credentials taken from anywhere (Socket.IO handshakes use it too). */
export async function authenticateCredentials(site: Site, credentials: Credentials): Promise<Authenticated> {
  const header = credentials.authorization;
  // A token verified within the TTL is known by the header's exact value: no parsing, no hashing.
  const user = (header ? site.tokenCache.get(header) : undefined) ?? (await tokenUser(site, header));
  if (user !== undefined) {
    const principal = user === null ? undefined : await resolvePrincipal(site, user);
    if (!principal) throw new AuthenticationError('Invalid API key or secret');
    return { principal, sid: undefined };
  }

  const sid = credentials.sid();
  if (sid && sid !== 'Guest') {
    // The session itself is looked up on every request, so a logout anywhere ends it at once.
    const session = await site.sessions.resolveIn(site.db, sid, { expirySeconds: (await siteSettings(site)).session_expiry });
    if (session) {
      const principal = await resolvePrincipal(site, session.user);
      if (principal) return { principal, sid: session.sid, csrfToken: session.csrfToken };
    }
  }
  return { principal: GUEST, sid: undefined };
}
