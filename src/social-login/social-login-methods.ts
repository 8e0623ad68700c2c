import { timingSafeEqual } from 'node:crypto';
import { LoginThrottle } from '../auth/login-throttle.js';
import { ADMINISTRATOR_USER, loadPrincipal } from '../auth/principal.js';
import type { DocumentService } from '../documents/document-service.js';
import { AuthenticationError, SecurityException, TooManyRequestsError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { identifyUser } from './link-account.js';
import { consumeLoginState, newLoginSecrets, sha256, STATE_COOKIE, STATE_LIFETIME_MS, storeLoginState } from './login-state.js';
import { authorizationUrl, redeemCode, type ProviderClients } from './provider-client.js';
import { safeRedirectPath } from './safe-redirect.js';
import { ALIASED_PROVIDERS, clientSecretOf, enabledKeyBySlug, readSocialLoginKeys, type SocialLoginKey } from './social-login-key-row.js';
import { startSessionForIdentifiedUser } from './start-social-session.js';
import type { LoginGate } from '../rpc/builtin/login-gate.js';

/** The reference's module of social login methods (each path answers under `frappe.` too). */
export const LOGINS = 'fw.integrations.oauth2_logins';
/** The start of a login: `/api/method/fw.integrations.oauth2_logins.start/<provider>?redirect_to=/app`. */
export const START_PATH = `${LOGINS}.start`;

/** What the methods need beside the call. */
export interface SocialLoginDeps {
  readonly documents: DocumentService;
  readonly encryptionKey: string;
  /** Epoch ms (the job queue's clock, which tests move). */
  readonly now: () => number;
  /** The site's public URL (site_config.json `host_name`); null: the origin each request reached. */
  readonly publicUrl: string | null;
  readonly clients: ProviderClients;
  /** The login gate every way in passes (two-factor login), asked for at each login. */
  readonly gate: () => LoginGate;
}

/** Per IP: starts and callbacks a browser needs, far below what guessing or flooding would. */
const START_LIMIT = { maxFailures: 60, windowSeconds: 600 };
const CALLBACK_LIMIT = { maxFailures: 30, windowSeconds: 600 };

async function limit(call: MethodCall, key: string, rule: { maxFailures: number; windowSeconds: number }): Promise<void> {
  try {
    await new LoginThrottle({ transaction: call.services.transaction, dialect: call.ctx.dialect }, rule).begin([key]);
  } catch (err) {
    if (err instanceof SecurityException) throw new TooManyRequestsError('Too many sign-in attempts. Please try again later.');
    throw err;
  }
}

function refused(message: string): AuthenticationError {
  return new AuthenticationError(message, { details: { responseMessage: message } });
}

function siteOrigin(deps: SocialLoginDeps, call: MethodCall): string {
  return deps.publicUrl ? new URL(deps.publicUrl).origin : call.http.origin;
}

/** The callback URL registered at the provider. */
function redirectUri(deps: SocialLoginDeps, call: MethodCall, key: SocialLoginKey): string {
  return `${siteOrigin(deps, call)}${key.redirectPath}`;
}

/** `start/<provider>`: stores the state, pins it to the browser, and sends the browser to the provider. */
async function startLogin(call: MethodCall, deps: SocialLoginDeps): Promise<{ location: string }> {
  const { http, services, ctx } = call;
  await limit(call, `sso-start:${http.ip || 'unknown'}`, START_LIMIT);
  const slug = http.pathTail || (typeof call.args.provider === 'string' ? call.args.provider : '');
  const origins = [...new Set([siteOrigin(deps, call), http.origin])];
  const redirectTo = safeRedirectPath(call.args.redirect_to, origins);
  const { key, secret } = await services.transaction(async (q) => {
    const key = await enabledKeyBySlug(q, ctx.dialect, slug);
    return { key, secret: await clientSecretOf(q, ctx.dialect, key, deps.encryptionKey) };
  });
  const config = await deps.clients.configuration(key, secret);
  const secrets = newLoginSecrets();
  const location = await authorizationUrl(config, key, redirectUri(deps, call, key), secrets);
  await services.transaction((q) =>
    storeLoginState(
      q,
      ctx.dialect,
      secrets.state,
      { provider: key.name, redirectTo, codeVerifier: secrets.codeVerifier, nonce: secrets.nonce, browserHash: sha256(secrets.browserToken) },
      deps.now(),
    ),
  );
  http.setCookie(STATE_COOKIE, secrets.browserToken, { httpOnly: true, maxAge: STATE_LIFETIME_MS / 1000 });
  http.redirect(location);
  return { location };
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The URL the provider sent the browser to, rebuilt from the registered callback and the answer's parameters. */
function callbackUrl(base: string, args: Readonly<Record<string, unknown>>): URL {
  const url = new URL(base);
  for (const [name, value] of Object.entries(args)) if (typeof value === 'string') url.searchParams.set(name, value);
  return url;
}

/**
 * The callback (`custom/<provider>`, `login_via_<provider>`): checks the state (known, unused,
 * unexpired, of this provider, started in this browser), redeems the code, finds or makes the
 * user, and starts the session. Every refusal is a JSON error and changes nothing but using up
 * the state.
 */
async function finishLogin(call: MethodCall, deps: SocialLoginDeps, slug: string): Promise<string> {
  const { http, services, ctx, args } = call;
  await limit(call, `sso-callback:${http.ip || 'unknown'}`, CALLBACK_LIMIT);
  const state = typeof args.state === 'string' ? args.state : '';
  if (state === '') throw refused('The sign-in answer carries no state; start again from the login page');
  const remembered = await services.transaction((q) => consumeLoginState(q, ctx.dialect, state, deps.now()));
  // The browser's pin is spent whatever follows.
  http.clearCookie(STATE_COOKIE);
  if (remembered === 'unknown') throw refused('This sign-in was already completed or is unknown; start again from the login page');
  if (remembered === 'expired') throw refused('This sign-in took longer than 10 minutes; start again from the login page');
  const key = await services.transaction((q) => enabledKeyBySlug(q, ctx.dialect, slug));
  if (remembered.provider !== key.name) throw refused('This sign-in was started with another provider; start again from the login page');
  if (!sameToken(sha256(http.cookie(STATE_COOKIE) ?? ''), remembered.browserHash)) {
    throw refused('This sign-in was started in another browser; start again from the login page');
  }
  if (typeof args.error === 'string') {
    const why = typeof args.error_description === 'string' ? `${args.error}: ${args.error_description}` : args.error;
    throw refused(`${key.name} refused the sign-in (${why.slice(0, 200)})`);
  }
  if (typeof args.code !== 'string' || args.code === '') throw refused('The sign-in answer carries no code');
  const secret = await services.transaction((q) => clientSecretOf(q, ctx.dialect, key, deps.encryptionKey));
  const config = await deps.clients.configuration(key, secret);
  const identity = await redeemCode(config, key, callbackUrl(redirectUri(deps, call, key), args), {
    state,
    nonce: remembered.nonce,
    codeVerifier: remembered.codeVerifier,
  });
  const admin = await services.transaction((q) => loadPrincipal(q, ctx.dialect, ADMINISTRATOR_USER));
  if (!admin) throw new Error('The Administrator is missing');
  const user = await services.write(admin, (w) => identifyUser(w, deps.documents, key, identity));
  return startSessionForIdentifiedUser(call, deps.gate(), user, remembered.redirectTo);
}

/** One provider as the login page shows it: no client id, no secret, no provider URLs. */
interface ProviderButton {
  readonly name: string;
  readonly provider_name: string;
  readonly social_login_provider: string;
  readonly icon: string | null;
  readonly login_url: string;
}

async function listProviders(call: MethodCall): Promise<ProviderButton[]> {
  const keys = await readSocialLoginKeys(call.ctx.q, call.ctx.dialect);
  return keys
    .filter((k) => k.enabled)
    .map((k) => ({
      name: k.slug,
      provider_name: k.name,
      social_login_provider: k.preset,
      icon: k.icon || null,
      login_url: `/api/method/${START_PATH}/${k.slug}`,
    }));
}

const CALLBACK_PARAMS = [
  { name: 'code', type: 'string' },
  { name: 'state', type: 'string' },
] as const;

/** The start, callbacks and provider list (docs/api.md "Single sign-on"). */
export function registerSocialLoginMethods(methods: MethodRegistry, deps: SocialLoginDeps): void {
  const browser = { allowGuest: true, ownTransactions: true } as const;
  methods.register(START_PATH, (call) => startLogin(call, deps), {
    ...browser,
    methods: ['GET'],
    description: 'Starts a sign-in with a social login provider (the path ends in /<provider>): answers 302 to the provider.',
    params: [
      { name: 'redirect_to', type: 'string' },
      { name: 'provider', type: 'string' },
    ],
  });
  const callback = (slugOf: (call: MethodCall) => string) => (call: MethodCall) => finishLogin(call, deps, slugOf(call));
  const options = {
    ...browser,
    methods: ['GET'] as const,
    description: "A social login provider's callback: checks the answer, signs the user in and answers 302 to where the login started.",
    params: [...CALLBACK_PARAMS],
  };
  methods.register(
    `${LOGINS}.custom`,
    callback((call) => call.http.pathTail),
    options,
  );
  for (const provider of ALIASED_PROVIDERS) {
    methods.register(
      `${LOGINS}.login_via_${provider}`,
      callback(() => provider),
      options,
    );
    methods.register(
      `fw.www.login.login_via_${provider}`,
      callback(() => provider),
      options,
    );
  }
  methods.register(`${LOGINS}.get_login_providers`, listProviders, {
    allowGuest: true,
    methods: ['GET', 'POST'],
    description: 'The enabled social login providers with the URL that starts a sign-in with each (no client ids, no secrets).',
  });
}
