import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import { loadUserPermissions } from '../documents/permission-rows.js';
import { AuthenticationError } from '../errors/index.js';
import type { Database } from '../storage/database.js';
import { statementReader } from '../storage/statement-reader.js';
import { verifyApiToken } from './api-keys.js';
import { parseAuthorizationHeader } from './authorization-header.js';
import { GUEST, loadPrincipal, type Principal, withUserPermissions } from './principal.js';
import type { PrincipalCache } from './principal-cache.js';
import type { SessionStore } from './sessions.js';
import type { TokenCache } from './token-cache.js';

/** The credentials a request (or a realtime handshake) presents, as the transport parsed them. */
export interface Credentials {
  /** The Authorization header's value. */
  readonly authorization: string | undefined;
  /** The session id (cookie or parameter), asked for only when no header decides. */
  sid(): string | undefined;
}

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
  /**
   * The scopes an OAuth bearer token was granted; absent for sessions and API keys, which act with
   * the user's full rights (docs/identity.md "fw as an OAuth2 / OpenID Connect provider").
   */
  readonly scopes?: ReadonlySet<string>;
}

/** What an accepted bearer token stands for. */
export interface BearerGrant {
  readonly user: string;
  readonly scopes: ReadonlySet<string>;
}

/** Verifies `Authorization: Bearer` tokens; registered by the OAuth provider (src/oauth/). */
export type BearerVerifier = (token: string) => Promise<BearerGrant | undefined>;

/** What the Identity service is built from (in the composition root, src/site/open-site.ts). */
export interface IdentityParts {
  readonly db: Database;
  readonly principals: PrincipalCache;
  readonly tokenCache: TokenCache;
  readonly sessions: SessionStore;
  /** `session_expiry` of the settings in effect, in seconds. */
  sessionExpirySeconds(): Promise<number>;
}

/**
 * Credentials, sessions and tokens → principal: the one place that decides who a request or a
 * realtime client is (docs/architecture.md "Identity"). Transports parse their headers and cookies
 * into {@link Credentials} and ask here.
 */
export class Identity {
  #bearer: BearerVerifier | undefined;

  constructor(private readonly parts: IdentityParts) {}

  /** Principals resolved by authentication, reused for up to a second (see PrincipalCache). */
  get principals(): PrincipalCache {
    return this.parts.principals;
  }

  /** API tokens verified in the last second (see TokenCache). */
  get tokenCache(): TokenCache {
    return this.parts.tokenCache;
  }

  /** Accepts `Authorization: Bearer` tokens from now on, verified by `verifier`. */
  acceptBearerTokens(verifier: BearerVerifier): void {
    this.#bearer = verifier;
  }

  /**
   * The principal of an authenticated user with their User Permission rules, from the short-lived
   * cache or else from the database; undefined when the user is missing or disabled.
   */
  principalOf(user: string): MaybePromise<Principal | undefined> {
    const { principals } = this.parts;
    // A hit is answered without a promise: this runs on every authenticated request.
    return principals.get(user, this.#loadPrincipal) ?? principals.resolve(user, this.#loadPrincipal);
  }

  /** A user's principal with their User Permission rules, from the database (one read unit). */
  readonly #loadPrincipal = (user: string): Promise<Principal | undefined> => {
    const { db } = this.parts;
    return db.read(async (q) => {
      const principal = await loadPrincipal(q, db.dialect, user);
      if (!principal || principal.isGuest || principal.isAdministrator) return principal;
      return withUserPermissions(principal, await loadUserPermissions(q, db.dialect, principal.user));
    });
  };

  /** The user of an API token, given as the Authorization header's value; undefined when it authenticates nobody. */
  readonly #verifyToken = async (authorization: string): Promise<string | undefined> => {
    const header = parseAuthorizationHeader(authorization);
    if (header.kind !== 'token') return undefined;
    const { db } = this.parts;
    return verifyApiToken(statementReader(db), db.dialect, header.apiKey, header.apiSecret);
  };

  /**
   * Resolves credentials to a principal: an Authorization header (`token key:secret`, `Basic ...`,
   * `Bearer ...`) first, stateless; else the session; else Guest. An unknown or ended `sid` makes a
   * Guest, not an error. A header that authenticates nobody is a 401. A token verified within the
   * TTL whose principal is cached is answered at once (every request with a token).
   */
  authenticate(credentials: Credentials): MaybePromise<Authenticated> {
    const header = credentials.authorization;
    // Known by the header's exact value: no parsing, no hashing; renewed in the background before
    // it expires, so a busy client's requests do not all miss at once.
    const user = header ? this.parts.tokenCache.get(header, this.#verifyToken) : undefined;
    if (user !== undefined) return andThen(this.principalOf(user), tokenAnswer);
    return this.#lookUp(credentials);
  }

  async #lookUp(credentials: Credentials): Promise<Authenticated> {
    const header = parseAuthorizationHeader(credentials.authorization);
    if (header.kind === 'unsupported') throw new AuthenticationError('Unsupported authorization');
    if (header.kind === 'bearer') return this.#bearerAnswer(header.token);
    if (header.kind === 'token') {
      // Concurrent requests with the same token share one verification (TokenCache.resolve).
      const user = await this.parts.tokenCache.resolve(credentials.authorization as string, this.#verifyToken);
      if (user === undefined) return tokenAnswer(undefined);
      return tokenAnswer(await this.principalOf(user));
    }
    const sid = credentials.sid();
    if (sid && sid !== 'Guest') {
      const { sessions, db } = this.parts;
      // The session itself is looked up on every request, so a logout anywhere ends it at once.
      const session = await sessions.resolveIn(db, sid, { expirySeconds: await this.parts.sessionExpirySeconds() });
      if (session) {
        const principal = await this.principalOf(session.user);
        if (principal) return { principal, sid: session.sid, csrfToken: session.csrfToken };
      }
    }
    return { principal: GUEST, sid: undefined };
  }

  /** A bearer token is looked up on every request (never cached), so a revocation applies at once. */
  async #bearerAnswer(token: string): Promise<Authenticated> {
    const grant = this.#bearer ? await this.#bearer(token) : undefined;
    if (!grant) throw new AuthenticationError('Invalid or expired bearer token');
    const principal = await this.principalOf(grant.user);
    if (!principal) throw new AuthenticationError('Invalid or expired bearer token');
    return { principal, sid: undefined, scopes: grant.scopes };
  }
}

/** A token's user as a request's principal; a missing or disabled user is a 401. */
function tokenAnswer(principal: Principal | undefined): Authenticated {
  if (!principal) throw new AuthenticationError('Invalid API key or secret');
  return { principal, sid: undefined };
}

/** Anything that carries the Identity service (the site does); realtime and metrics take only this. */
export interface IdentityHolder {
  readonly identity: Identity;
}

/** {@link Identity.principalOf} of a holder. */
export function resolvePrincipal(holder: IdentityHolder, user: string): MaybePromise<Principal | undefined> {
  return holder.identity.principalOf(user);
}

/** {@link Identity.authenticate} of a holder, for credentials taken from anywhere (Socket.IO handshakes too). */
export function authenticateCredentials(holder: IdentityHolder, credentials: Credentials): MaybePromise<Authenticated> {
  return holder.identity.authenticate(credentials);
}
