import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { dataOf, type Json } from './document-api.js';
import type { TestRequest, TestSite } from './test-site.js';

/** A user the permission scenarios act as: their name and an `Authorization` header for them. */
export interface ActingUser {
  readonly name: string;
  readonly auth: string;
}

/** The password every scenario user gets. */
export const USER_PASSWORD = 'Perm-Test-Secret-42';

/** Creates a Role through the API as the Administrator. */
export async function createRole(t: TestSite, role: string): Promise<void> {
  dataOf(await t.request({ method: 'POST', url: '/api/resource/Role', body: { role_name: role } }));
}

/**
 * Creates a user through the API as the Administrator (email, first_name, new_password, roles,
 * user_type) and gives them API keys through `generate_keys`.
 */
export async function createUser(
  t: TestSite,
  email: string,
  options: { roles?: string[]; userType?: 'System User' | 'Website User' } = {},
): Promise<ActingUser> {
  const body: Json = {
    email,
    first_name: email.split('@')[0],
    new_password: USER_PASSWORD,
    roles: (options.roles ?? []).map((role) => ({ role })),
  };
  if (options.userType) body.user_type = options.userType;
  const user = dataOf(await t.request({ method: 'POST', url: '/api/resource/User', body }));
  const keys = await t.request({
    method: 'POST',
    url: '/api/method/fw.core.doctype.user.user.generate_keys',
    body: { user: user.name },
  });
  assert.equal(keys.statusCode, 200, keys.body);
  const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
  return { name: String(user.name), auth: `token ${api_key}:${api_secret}` };
}

/** Sends a request as `user` (Guest when `user` is undefined). */
export function actAs(t: TestSite, user: ActingUser | undefined, request: TestRequest): Promise<LightMyRequestResponse> {
  return t.request({ ...request, anonymous: true, headers: { ...(user ? { authorization: user.auth } : {}), ...request.headers } });
}

/** A JSON query string for list and method calls. */
export function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  return `?${search.toString()}`;
}
