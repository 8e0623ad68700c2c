import type { FastifyRequest } from 'fastify';
import { andThen, type MaybePromise } from '../async/maybe-promise.js';
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
export function resolvePrincipal(site: Site, user: string): MaybePromise<Principal | undefined> {
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
export function authenticate(site: Site, req: FastifyRequest): MaybePromise<Authenticated> {
  const cookies = req.headers.cookie;
  const parameter = sidParameter(req);
  const result = authenticateCredentials(site, {
    authorization: req.headers.authorization,
    // A `sid` parameter wins over the cookie, as in the reference; an unknown one is Guest.
    sid: () => parameter ?? (cookies ? req.server.parseCookie(cookies).sid : undefined),
  });
  if (parameter === undefined) return result;
  return andThen(result, (r) => (r.sid !== undefined ? { ...r, sidFromParameter: true } : r));
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

/**
 * {@link authenticate} for credentials taken from anywhere (Socket.IO handshakes use it too). A
 * token verified within the TTL whose principal is cached is answered at once (every request with
 * a token); anything else is looked up.
 */
export function authenticateCredentials(site: Site, credentials: Credentials): MaybePromise<Authenticated> {
  const header = credentials.authorization;
  // Known by the header's exact value: no parsing, no hashing.
  const user = header ? site.tokenCache.get(header) : undefined;
  if (user !== undefined) return andThen(resolvePrincipal(site, user), tokenAnswer);
  return lookUp(site, credentials);
}

/** A token's user as a request's principal; a missing or disabled user is a 401. */
function tokenAnswer(principal: Principal | undefined): Authenticated {
  if (!principal) throw new AuthenticationError('Invalid API key or secret');
  return { principal, sid: undefined };
}

async function lookUp(site: Site, credentials: Credentials): Promise<Authenticated> {
  const user = await tokenUser(site, credentials.authorization);
  if (user !== undefined) return tokenAnswer(user === null ? undefined : await resolvePrincipal(site, user));

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
