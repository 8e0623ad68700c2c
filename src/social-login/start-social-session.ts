import { loadPrincipal } from '../auth/principal.js';
import { startLoginSession } from '../auth/start-session.js';
import { AuthenticationError } from '../errors/index.js';
import type { MethodCall } from '../rpc/method-registry.js';
import type { Row } from '../storage/database.js';

/**
 * THE step from "a provider identified this user" to "signed in": everything before it only
 * identifies (state, id_token, account link); this starts the session exactly as password login
 * does (auth/start-session.ts) and sends the browser on to `redirectTo`.
 *
 * Two-factor login hooks in here: where 2FA applies to the user, this is where a second step
 * must be asked for instead of a session (docs/identity.md "Single sign-on").
 */
export async function startSessionForIdentifiedUser(call: MethodCall, userName: string, redirectTo: string): Promise<string> {
  const { ctx, services, http } = call;
  const { principal, row } = await services.transaction(async (q) => ({
    principal: await loadPrincipal(q, ctx.dialect, userName),
    row: (await q.all<Row>(ctx.dialect.builder.selectFrom('tabUser').select(['name', 'full_name', 'user_image']).where('name', '=', userName).compile()))[0],
  }));
  if (!principal || !row) throw new AuthenticationError('User disabled or missing', { details: { responseMessage: 'User disabled or missing' } });
  const user = {
    name: userName,
    full_name: row.full_name == null ? null : String(row.full_name),
    user_image: row.user_image == null ? null : String(row.user_image),
  };
  const message = await startLoginSession(services, http, user, principal);
  http.extraBody.home_page = redirectTo;
  http.redirect(redirectTo);
  return message;
}
