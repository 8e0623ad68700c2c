import { LoginThrottle, throttleKeys } from '../../auth/login-throttle.js';
import { loadPrincipal } from '../../auth/principal.js';
import { AuthenticationError } from '../../errors/index.js';
import type { Settings } from '../../settings/settings.js';
import type { Queryable } from '../../storage/database.js';
import type { HttpExchange, MethodCall } from '../method-registry.js';

/** Cookies the reference sets at login and expires at logout or a failed login. */
export const SESSION_COOKIES = ['sid', 'user_id', 'full_name', 'system_user', 'user_image'] as const;

/** Expires the reference's session cookies (a failed login, logout). */
export function expireSessionCookies(http: HttpExchange): void {
  for (const name of SESSION_COOKIES) http.clearCookie(name);
}

/** A 401 for a refused login, with the session cookies expired as the reference does. */
export function invalidLogin(http: HttpExchange, message = 'Invalid login credentials'): AuthenticationError {
  expireSessionCookies(http);
  return new AuthenticationError(message, { details: { responseMessage: message } });
}

/** The lockout rule from the site settings; counts in transactions of its own (the site's runner). */
export function loginThrottle(call: Pick<MethodCall, 'services' | 'ctx'>, settings: Settings): LoginThrottle {
  return new LoginThrottle(
    { transaction: call.services.transaction, dialect: call.ctx.dialect },
    { maxFailures: settings.allow_consecutive_login_attempts, windowSeconds: settings.allow_login_after_fail },
  );
}

/** The throttle keys of a login by `user` from the call's client (docs/security.md "Rate limits"). */
export function loginKeys(call: Pick<MethodCall, 'http'>, user: string | undefined): string[] {
  return throttleKeys({ ip: call.http.ip || 'unknown', user });
}

/**
 * Starts a session for `user`, whose every factor is proven: clears the login counters of the user
 * and the client, ends the user's other sessions when `deny_multiple_sessions` says so, sets the
 * reference's cookies and `home_page`/`full_name`, and answers "Logged In" (System Users) or "No App".
 * `alsoInTransaction` runs in the session's own transaction first (the second factor marks its code
 * used there, so a code is spent exactly when a session comes of it). A user disabled meanwhile is 401.
 */
export async function startLoginSession(call: MethodCall, user: string, alsoInTransaction?: (q: Queryable) => Promise<void>): Promise<string> {
  const { http, ctx, services } = call;
  const settings = await services.settings();
  const throttle = loginThrottle(call, settings);
  const keys = loginKeys(call, user);
  const expirySeconds = settings.session_expiry;
  const { sid, principal, row } = await services.transaction(async (q) => {
    const principal = await loadPrincipal(q, ctx.dialect, user);
    if (!principal) throw invalidLogin(http, 'User disabled or missing');
    const [row] = await q.all<{ full_name: string | null; user_image: string | null }>(
      ctx.dialect.builder.selectFrom('tabUser').select(['full_name', 'user_image']).where('name', '=', user).compile(),
    );
    if (alsoInTransaction) await alsoInTransaction(q);
    await throttle.reset(q, keys);
    if (settings.deny_multiple_sessions) await services.sessions.destroyAllForUser(q, user);
    const session = await services.sessions.create(q, { user, ip: http.ip, userAgent: http.userAgent, expirySeconds });
    return { sid: session.sid, principal, row };
  });
  const fullName = row?.full_name ?? user;
  http.setCookie('sid', sid, { httpOnly: true, maxAge: expirySeconds });
  http.setCookie('user_id', user, {});
  http.setCookie('full_name', fullName, {});
  http.setCookie('system_user', principal.userType === 'System User' ? 'yes' : 'no', {});
  http.setCookie('user_image', row?.user_image ?? '', {});
  http.extraBody.home_page = '/app';
  http.extraBody.full_name = fullName;
  return principal.userType === 'System User' ? 'Logged In' : 'No App';
}
