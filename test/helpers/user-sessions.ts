import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestSite } from './test-site.js';

let lastIp = 0;

/**
 * A client address no other request of this process used, so login-throttle counters of one test
 * never reach another (the default inject address, 127.0.0.1, is shared by everything).
 */
export function freshIp(): string {
  lastIp += 1;
  return `10.${(lastIp >> 16) & 255}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

/** A password login from `ip` (a fresh address unless given). */
export function login(
  app: FastifyInstance,
  usr: string,
  pwd: string,
  options: { ip?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/method/login',
    payload: { usr, pwd },
    remoteAddress: options.ip ?? freshIp(),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** The live sid a response set, if any. */
export function sidOf(res: LightMyRequestResponse): string | undefined {
  const sid = res.cookies.find((c) => c.name === 'sid')?.value;
  return sid && sid !== 'Guest' ? sid : undefined;
}

/** Logs in and returns the new session id, failing the test when the login fails. */
export async function sessionFor(app: FastifyInstance, usr: string, pwd: string): Promise<string> {
  const res = await login(app, usr, pwd);
  assert.equal(res.statusCode, 200, res.body);
  const sid = sidOf(res);
  assert.ok(sid, 'login set a sid');
  return sid;
}

/** Who `headers` authenticate as: the user name, or undefined when the request is refused or Guest. */
export async function whoIs(app: FastifyInstance, headers: Record<string, string>): Promise<string | undefined> {
  const res = await app.inject({ method: 'GET', url: '/api/method/fw.auth.get_logged_user', headers });
  return res.statusCode === 200 ? (res.json().message as string) : undefined;
}

/** A new user created by the Administrator through the API; returns the stored document. */
export async function createUser(
  t: TestSite,
  user: { email: string; password: string; roles?: string[]; userType?: string; firstName?: string },
): Promise<Record<string, unknown>> {
  const res = await t.request({
    method: 'POST',
    url: '/api/resource/User',
    body: {
      email: user.email,
      first_name: user.firstName ?? 'Test',
      new_password: user.password,
      roles: (user.roles ?? []).map((role) => ({ role })),
      user_type: user.userType ?? 'System User',
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Record<string, unknown>;
}

/** A fresh API token for `user`, made by the Administrator: the `Authorization` header value. */
export async function tokenFor(t: TestSite, user: string): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/api/method/fw.core.doctype.user.user.generate_keys', body: { user } });
  assert.equal(res.statusCode, 200, res.body);
  const { api_key, api_secret } = res.json().message as { api_key: string; api_secret: string };
  return `token ${api_key}:${api_secret}`;
}
