import type { IncomingHttpHeaders } from 'node:http';
import { authenticateCredentials, type Authenticated } from '../http/authenticate.js';
import { originAllowed } from '../http/cors.js';
import { siteSettings } from '../site/site-settings.js';
import type { Site } from '../site/site.js';

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
function authorizationOf(handshake: Handshake): string | undefined {
  const header = handshake.headers.authorization;
  if (header) return header;
  const token = handshake.auth?.token;
  if (typeof token !== 'string' || token === '') return undefined;
  return /^(token|basic|bearer)\s/i.test(token) ? token : `token ${token}`;
}

/**
 * Authenticates a handshake exactly as an HTTP request: Authorization first, then the `sid`
 * cookie, else Guest. Wrong credentials throw (the connection is refused).
 */
export async function authenticateHandshake(site: Site, handshake: Handshake): Promise<Authenticated> {
  return authenticateCredentials(site, {
    authorization: authorizationOf(handshake),
    sid: () => sidCookie(handshake.headers.cookie),
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
 * The defence against cross-site WebSocket hijacking (docs/realtime.md, "Authentication"): a
 * browser page of another site could otherwise open a socket that carries the user's cookie. The
 * Origin's host name must be the Host's (ports may differ: apps on :8080 talk to :9000), or the
 * origin must be allowed by `allow_cors`. Clients that send no Origin (not a browser page) pass.
 */
export async function originPermitted(site: Site, headers: IncomingHttpHeaders): Promise<boolean> {
  const origin = headers.origin;
  if (origin === undefined) return true;
  const originHost = hostnameOf(origin);
  if (originHost !== undefined && originHost === hostnameOf(headers.host)) return true;
  const settings = await siteSettings(site, { fresh: true }).catch(() => site.settingsCache.current);
  return originAllowed(settings.allow_cors, origin);
}
