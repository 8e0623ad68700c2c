import assert from 'node:assert/strict';
import { httpCall } from './http-call.js';

/** How a test acts as Administrator against a listening server. */
export interface WireAdmin {
  /** `Cookie` header value carrying the login's session. */
  readonly cookie: string;
  /** `Authorization` header value with a fresh API key pair. */
  readonly authorization: string;
}

/** Logs in as Administrator over HTTP and generates API keys through that session. */
export async function wireAdmin(baseUrl: string, password: string): Promise<WireAdmin> {
  const login = await httpCall(baseUrl, { method: 'POST', path: '/api/method/login', body: { usr: 'Administrator', pwd: password } });
  assert.equal(login.status, 200, login.text);
  const sid = (login.headers['set-cookie'] ?? []).map((c) => /^sid=([^;]+)/.exec(c)?.[1]).find(Boolean);
  assert.ok(sid, 'login set a sid cookie');
  const cookie = `sid=${sid}`;
  const keys = await httpCall(baseUrl, {
    method: 'POST',
    path: '/api/method/fw.core.doctype.user.user.generate_keys',
    headers: { cookie },
    body: { user: 'Administrator' },
  });
  assert.equal(keys.status, 200, keys.text);
  const { api_key, api_secret } = keys.json().message as { api_key: string; api_secret: string };
  return { cookie, authorization: `token ${api_key}:${api_secret}` };
}
