import { DoesNotExistError } from '../errors/index.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { generateApiCredentials, storeApiSecret, type ApiCredentials } from './api-keys.js';
import { GUEST_USER } from './principal.js';

/**
 * Gives `user` a fresh API secret, keeping their API key when they have one (a new key otherwise).
 * The key is written on the User, only a hash of the secret is stored, and the previous secret
 * stops working. Permission to do this is the caller's business.
 */
export async function issueApiKeys(q: Queryable, dialect: Dialect, user: string): Promise<ApiCredentials> {
  const rows = await q.all<{ name: string; api_key: string | null }>(
    dialect.builder.selectFrom('tabUser').select(['name', 'api_key']).where('name', '=', user).compile(),
  );
  if (rows.length === 0 || user === GUEST_USER) throw new DoesNotExistError(`User ${user} not found`, { doctype: 'User' });
  const fresh = generateApiCredentials();
  const apiKey = rows[0].api_key || fresh.apiKey;
  await q.run(dialect.builder.updateTable('tabUser').set({ api_key: apiKey }).where('name', '=', user).compile());
  await storeApiSecret(q, dialect, user, fresh.apiSecret);
  return { apiKey, apiSecret: fresh.apiSecret };
}
