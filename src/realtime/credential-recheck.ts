import { GUEST_USER } from '../auth/principal.js';
import { authenticateCredentials, type IdentityHolder } from '../auth/identity.js';
import { principalOf } from './read-decider.js';
import type { RealtimeHub } from './realtime-hub.js';

/** The user an Authorization value authenticates now; undefined when it no longer does. */
async function tokenOwner(site: IdentityHolder, authorization: string): Promise<string | undefined> {
  try {
    const { principal } = await authenticateCredentials(site, { authorization, sid: () => undefined });
    return principal.isGuest ? undefined : principal.user;
  } catch {
    return undefined;
  }
}

/**
 * Holds every live client against its credentials as they are now: a user disabled or deleted, or
 * an API secret replaced, by something that does not tell the realtime bus (an `fw user` command
 * run on the server, a change made directly in the database) ends the client at the next look.
 * Each distinct user and each distinct token is looked up once per round.
 */
export async function recheckCredentials(site: IdentityHolder, hub: RealtimeHub): Promise<void> {
  const users = new Map<string, boolean>();
  const tokens = new Map<string, string | undefined>();
  for (const client of [...hub.all()]) {
    if (client.user === GUEST_USER) continue;
    if (!users.has(client.user)) users.set(client.user, (await principalOf(site, client.user)) !== undefined);
    if (!users.get(client.user)) {
      client.close('user disabled');
      continue;
    }
    const authorization = client.authorization;
    if (authorization === undefined) continue;
    if (!tokens.has(authorization)) tokens.set(authorization, await tokenOwner(site, authorization));
    if (tokens.get(authorization) !== client.user) client.close('credentials revoked');
  }
}

/**
 * Runs {@link recheckCredentials} every `seconds` (`realtime_heartbeat_seconds`, docs/realtime.md
 * "Privacy"), one round at a time. Changes made through fw itself end connections at once through
 * the bus; this is the net for the others. Returns the function that stops it.
 */
export function recheckCredentialsEvery(site: IdentityHolder, hub: RealtimeHub, seconds: number, onError: (err: unknown) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    recheckCredentials(site, hub)
      .catch(onError)
      .finally(() => (running = false));
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
