import type { IncomingHttpHeaders } from 'node:http';
import { authenticateCredentials, type Authenticated, type IdentityHolder } from '../auth/identity.js';
import { originAllowed, originListed } from '../settings/origin-policy.js';
import { siteSettings, type SettingsSource } from '../settings/site-settings.js';

/** What a Socket.IO handshake presents: the headers of its first request and the client's `auth` payload. */
export interface Handshake {
  readonly headers: IncomingHttpHeaders;
  readonly auth: Record<string, unknown> | undefined;
}

/** The `sid` cookie of a Cookie header, if any. */
export function sidCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== 'sid') continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

/**
 * The Authorization value of a handshake: the header (Node and native clients send it through
 * `extraHeaders`), else Socket.IO's `auth: {token: "key:secret"}`, which browsers can send although
 * they cannot set headers on a WebSocket.
 */
export function authorizationOf(handshake: Handshake): string | undefined {
  const header = handshake.headers.authorization;
  if (header) return header;
  const token = handshake.auth?.token;
  if (typeof token !== 'string' || token === '') return undefined;
  return /^(token|basic|bearer)\s/i.test(token) ? token : `token ${token}`;
}

/**
 * Authenticates a handshake exactly as an HTTP request: Authorization first, then the `sid`
 * cookie (unless `cookies` is false: see {@link OriginTrust}), else Guest. Wrong credentials throw
 * (the connection is refused).
 */
export async function authenticateHandshake(site: IdentityHolder, handshake: Handshake, cookies = true): Promise<Authenticated> {
  return authenticateCredentials(site, {
    authorization: authorizationOf(handshake),
    sid: () => (cookies ? sidCookie(handshake.headers.cookie) : undefined),
  });
}

/** The host name of a `Host` value or a URL's authority, lower-cased, without port. */
export function hostnameOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * How far a realtime client's Origin is trusted (docs/realtime.md, "Connecting with Socket.IO"):
 * - `no-origin`: not a browser page (browsers always send Origin on a WebSocket and on cross-origin
 *   requests); its cookies were sent on purpose;
 * - `same-host`: the Origin's host name is the Host's (ports may differ: apps on :8080 talk to :9000);
 * - `listed`: `allow_cors` names the origin: it may use the visitor's session, as for HTTP;
 * - `any`: admitted only by `allow_cors: "*"`, which lets any page read but never with the visitor's
 *   session, so its cookies are ignored (the client is Guest unless it presents a token);
 * - `refused`: another site, not allowed at all.
 */
export type OriginTrust = 'no-origin' | 'same-host' | 'listed' | 'any' | 'refused';

/** Whether a client of this trust may be authenticated by the cookies its browser adds on its own. */
export function cookiesTrusted(trust: OriginTrust): boolean {
  return trust === 'no-origin' || trust === 'same-host' || trust === 'listed';
}

/**
 * The defence against cross-site WebSocket hijacking (docs/realtime.md, "Connecting with Socket.IO"): a browser page
 * of another site could otherwise open a socket or stream that carries the user's cookie.
 */
export async function originTrust(site: SettingsSource, headers: IncomingHttpHeaders): Promise<OriginTrust> {
  const origin = headers.origin;
  if (origin === undefined) return 'no-origin';
  const originHost = hostnameOf(origin);
  if (originHost !== undefined && originHost === hostnameOf(headers.host)) return 'same-host';
  const settings = await siteSettings(site, { fresh: true }).catch(() => site.settingsCache.current);
  if (originListed(settings.allow_cors, origin)) return 'listed';
  return originAllowed(settings.allow_cors, origin) ? 'any' : 'refused';
}
