import { LoginThrottle, throttleKeys } from '../../auth/login-throttle.js';
import { checkUserPassword } from '../../auth/passwords.js';
import { loadPrincipal } from '../../auth/principal.js';
import { startLoginSession } from '../../auth/start-session.js';
import { findLoginUser } from '../../auth/user-names.js';
import type { DocContext } from '../../documents/doc-context.js';
import { AuthenticationError } from '../../errors/index.js';
import type { Settings } from '../../settings/settings.js';
import type { HttpExchange, MethodCall, MethodRegistry } from '../method-registry.js';
import { LOGIN, RESULTS } from './client-params.js';

/** Cookies the reference sets at login and expires at logout or a failed login. */
const SESSION_COOKIES = ['sid', 'user_id', 'full_name', 'system_user', 'user_image'] as const;

function expireSessionCookies(http: HttpExchange): void {
  for (const name of SESSION_COOKIES) http.clearCookie(name);
}

function invalidLogin(http: HttpExchange, message = 'Invalid login credentials'): AuthenticationError {
  expireSessionCookies(http);
  return new AuthenticationError(message, { details: { responseMessage: message } });
}

/** The one User row `usr` names (by exact name, else by email: findLoginUser). */
async function findUser(call: MethodCall, usr: string): Promise<{ name: string; full_name: string | null; user_image: string | null } | undefined> {
  const { q, dialect } = call.ctx;
  const name = await findLoginUser(call.ctx, usr);
  if (name === undefined) return undefined;
  const rows = await q.all<{ name: string; full_name: string | null; user_image: string | null }>(
    dialect.builder.selectFrom('tabUser').select(['name', 'full_name', 'user_image']).where('name', '=', name).compile(),
  );
  return rows[0];
}

/** The lockout rule from the site settings. */
function throttleFor(call: MethodCall, settings: Settings): LoginThrottle {
  // Counts in transactions of its own (the site's runner), so a failed login still leaves its count.
  return new LoginThrottle(
    { transaction: call.services.transaction, dialect: call.ctx.dialect },
    {
      maxFailures: settings.allow_consecutive_login_attempts,
      windowSeconds: settings.allow_login_after_fail,
    },
  );
}

/**
 * `login`: password login that starts a database session and sets the reference's cookies.
 * Registered with `ownTransactions`: the attempt is counted by the throttle in a transaction of its
 * own before the password is checked, so a failed login (which throws) still leaves its count.
 */
async function login(call: MethodCall): Promise<string> {
  const { args, http, ctx, services } = call;
  const usr = typeof args.usr === 'string' ? args.usr.trim() : '';
  const pwd = typeof args.pwd === 'string' ? args.pwd : '';
  const user = usr ? await findUser(call, usr) : undefined;
  // Unknown users count only against the IP, so guessed names cannot fill the counter table.
  const keys = throttleKeys({ ip: http.ip || 'unknown', user: user?.name });
  const settings = await services.settings();
  const throttle = throttleFor(call, settings);
  await throttle.begin(keys);

  // Nothing to check: a 401, but the session the request came with stays (its cookies too).
  if (!usr || !pwd) throw new AuthenticationError('Incomplete login details', { details: { responseMessage: 'Incomplete login details' } });
  const passwordOk = await checkUserPassword(ctx.q, ctx.dialect, user?.name ?? usr, pwd).catch((err: unknown) => {
    if (err instanceof AuthenticationError) throw invalidLogin(http, err.message);
    throw err;
  });
  if (!user || !passwordOk) throw invalidLogin(http);
  const principal = await loadPrincipal(ctx.q, ctx.dialect, user.name);
  if (!principal) throw invalidLogin(http, 'User disabled or missing');

  return startLoginSession(services, http, user, principal, (q) => throttle.reset(q, keys));
}

/** Ends a session's live connections once the unit committed (docs/realtime.md). */
type SessionRevoker = (ctx: DocContext, sid: string) => void;

/** `logout`: ends the session, its live connections (after the commit) and expires the cookies. */
async function logout(call: MethodCall, revokeSession: SessionRevoker): Promise<undefined> {
  if (call.http.sid) {
    await call.services.sessions.destroy(call.ctx.q, call.http.sid);
    revokeSession(call.ctx, call.http.sid);
  }
  expireSessionCookies(call.http);
  return undefined;
}

/**
 * `fw.auth.get_csrf_token`: the CSRF token of the caller's cookie session, issued on first call
 * (a page such as the desk calls it at boot and sends it back in `X-Frappe-CSRF-Token`); from then
 * on every write of that session must carry it (docs/security.md, "Sessions and CSRF"). Requests
 * without a session (token or Basic auth) need none: null. Other origins cannot read the answer
 * unless `allow_cors` lists them.
 */
async function getCsrfToken(call: MethodCall): Promise<string | null> {
  const sid = call.http.sid;
  if (sid === undefined) return null;
  return (await call.services.transaction((q) => call.services.sessions.issueCsrfToken(q, sid))) ?? null;
}

/** Login, logout, the current user and the liveness ping. */
export function registerAuthMethods(methods: MethodRegistry, revokeSession: SessionRevoker): void {
  // Login sets the session cookie: refused from another site's page (docs/security.md, "Sessions and CSRF").
  methods.register('login', login, {
    allowGuest: true,
    methods: ['POST'],
    ownTransactions: true,
    startsSession: true,
    params: LOGIN,
    result: RESULTS.login,
  });
  methods.register('logout', (call) => logout(call, revokeSession), { allowGuest: true, methods: ['POST'] });
  const pong = { allowGuest: true, usesDatabase: false, description: 'Liveness: answers "pong" without touching the database.', result: { const: 'pong' } };
  methods.register('ping', async () => 'pong', pong);
  methods.register('fw.ping', async () => 'pong', pong);
  methods.register('fw.auth.get_logged_user', async ({ ctx }) => ctx.principal.user, {
    description: 'The name of the signed-in user.',
    result: { type: 'string' },
  });
  methods.register('fw.auth.get_csrf_token', getCsrfToken, { methods: ['GET', 'POST'], ownTransactions: true });
}
