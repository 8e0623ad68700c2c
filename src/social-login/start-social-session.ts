import type { LoginGate } from '../rpc/builtin/login-gate.js';
import { loginKeys, loginThrottle } from '../rpc/builtin/login-session.js';
import type { MethodCall } from '../rpc/method-registry.js';

/**
 * THE step from "a provider identified this user" to "signed in": everything before it only
 * identifies (state, id_token, account link). The login then passes the same gate as a password
 * login (docs/identity.md "Completing a login"): counted against the lockout, and where two-factor
 * login applies to the user, the browser goes to the login page's second step instead of
 * `redirectTo` (docs/identity.md "Single sign-on").
 */
export async function startSessionForIdentifiedUser(call: MethodCall, gate: LoginGate, userName: string, redirectTo: string): Promise<string> {
  const { http, services } = call;
  const settings = await services.settings();
  await loginThrottle(call, settings).begin(loginKeys(call, userName));
  const outcome = await gate.beginLogin(call, userName);
  if (outcome.kind === 'verify') {
    const step = new URLSearchParams({ tmp_id: outcome.tmpId, method: outcome.verification.method });
    http.redirect(`/login#${step.toString()}`);
    return outcome.message;
  }
  http.extraBody.home_page = redirectTo;
  http.redirect(redirectTo);
  return outcome.message;
}
