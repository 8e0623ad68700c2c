import type { HttpExchange, MethodServices } from '../rpc/method-registry.js';
import type { Queryable } from '../storage/database.js';
import type { Principal } from './principal.js';

/** The user a login has identified and checked (enabled, password or provider accepted). */
export interface IdentifiedUser {
  readonly name: string;
  readonly full_name: string | null;
  readonly user_image: string | null;
}

/**
 * Starts a database session for a user every check has already accepted, and sets the reference's
 * cookies (docs/api.md "Authentication"): the one way password login and single sign-on sign a
 * user in. `inTransaction` runs in the session's transaction (login resets its throttle there).
 * Answers login's `message`: "Logged In" for System Users, "No App" for Website Users.
 */
export async function startLoginSession(
  services: MethodServices,
  http: HttpExchange,
  user: IdentifiedUser,
  principal: Principal,
  inTransaction?: (q: Queryable) => Promise<void>,
): Promise<string> {
  const settings = await services.settings();
  const expirySeconds = settings.session_expiry;
  const { sid } = await services.transaction(async (q) => {
    if (inTransaction) await inTransaction(q);
    if (settings.deny_multiple_sessions) await services.sessions.destroyAllForUser(q, user.name);
    return services.sessions.create(q, { user: user.name, ip: http.ip, userAgent: http.userAgent, expirySeconds });
  });
  const fullName = user.full_name ?? user.name;
  http.setCookie('sid', sid, { httpOnly: true, maxAge: expirySeconds });
  http.setCookie('user_id', user.name, {});
  http.setCookie('full_name', fullName, {});
  http.setCookie('system_user', principal.userType === 'System User' ? 'yes' : 'no', {});
  http.setCookie('user_image', user.user_image ?? '', {});
  http.extraBody.home_page = '/app';
  http.extraBody.full_name = fullName;
  return principal.userType === 'System User' ? 'Logged In' : 'No App';
}
