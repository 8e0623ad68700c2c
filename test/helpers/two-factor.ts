import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { TestSite } from './test-site.js';

/** The code an authenticator app shows for `secret` (base32) at `timestampMs`: otpauth, as a phone would. */
export function codeAt(secret: string, timestampMs: number): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: timestampMs });
}

/** Writes System Settings values (as the Administrator). */
export async function setSystemSettings(t: TestSite, values: Record<string, unknown>): Promise<void> {
  const res = await t.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: values });
  assert.equal(res.statusCode, 200, res.body);
}

/** A role whose users are asked for a second factor. */
export async function twoFactorRole(t: TestSite, role: string): Promise<void> {
  const res = await t.request({ method: 'POST', url: '/api/resource/Role', body: { role_name: role, two_factor_auth: 1 } });
  assert.equal(res.statusCode, 200, res.body);
}

/**
 * One browser: a fixed client address and user agent (a waiting login is bound to both), and the
 * session cookie it was given.
 */
export class TwoFactorClient {
  sid: string | undefined;
  constructor(
    readonly t: TestSite,
    readonly ip: string,
    readonly userAgent = 'test-browser/1.0',
  ) {}

  post(path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.t.app.inject({
      method: 'POST',
      url: `/api/method/${path}`,
      payload: body,
      remoteAddress: this.ip,
      headers: { 'user-agent': this.userAgent, ...(this.sid ? { cookie: `sid=${this.sid}` } : {}), ...headers },
    });
  }

  get(path: string): Promise<LightMyRequestResponse> {
    return this.t.app.inject({
      method: 'GET',
      url: `/api/method/${path}`,
      remoteAddress: this.ip,
      headers: { 'user-agent': this.userAgent, ...(this.sid ? { cookie: `sid=${this.sid}` } : {}) },
    });
  }

  /** The first step: usr and pwd. Keeps the sid when one was set. */
  async login(usr: string, pwd: string): Promise<LightMyRequestResponse> {
    const res = await this.post('login', { usr, pwd });
    this.#keepSid(res);
    return res;
  }

  /** The second step: otp and tmp_id. Keeps the sid when one was set. */
  async verify(tmpId: string, otp: string): Promise<LightMyRequestResponse> {
    const res = await this.post('login', { otp, tmp_id: tmpId });
    this.#keepSid(res);
    return res;
  }

  #keepSid(res: LightMyRequestResponse): void {
    const sid = res.cookies.find((c) => c.name === 'sid')?.value;
    if (sid) this.sid = sid;
  }

  /** The signed-in user of this client's session, or undefined. */
  async whoAmI(): Promise<string | undefined> {
    if (!this.sid) return undefined;
    const res = await this.get('fw.auth.get_logged_user');
    return res.statusCode === 200 ? (res.json().message as string) : undefined;
  }
}
