import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { CSRFTokenError } from '../errors/index.js';
import type { CorsSettings } from './cors.js';
import { originListed } from '../settings/origin-policy.js';

/** Verbs that never write, so a cross-site request with them changes nothing (GET runs read-only). */
const SAFE_VERBS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header a page sends its session's token in (frappe-js-sdk sends `window.csrf_token` there). */
export const CSRF_HEADER = 'x-frappe-csrf-token';

/** What the check needs about the session the cookie resumed. */
export interface CookieSession {
  /** The token issued to a page of this session, or null when none was issued. */
  readonly csrfToken: string | null | undefined;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The origin a request says it comes from: `Origin`, else the origin of `Referer` ("null" when unreadable). */
function claimedOrigin(req: FastifyRequest): string | undefined {
  const origin = header(req, 'origin');
  if (origin !== undefined) return origin.trim();
  const referer = header(req, 'referer');
  if (referer === undefined) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

/** True when `origin` names this server as the request reached it (host and port; Host, or X-Forwarded-Host from a trusted proxy). */
function isOwnOrigin(req: FastifyRequest, origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host !== '' && host.toLowerCase() === req.host.toLowerCase();
}

function tokensMatch(expected: string, sent: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refused(why: string): CSRFTokenError {
  return new CSRFTokenError('Invalid Request', { messages: [{ message: `Invalid Request: ${why}`, title: 'Invalid Request' }] });
}

/**
 * Refuses a write a browser sent on another site's behalf (docs/security.md, "Sessions and CSRF"):
 * - its `Origin` (or, without one, its `Referer`) must be this server or an origin `allow_cors`
 *   lists by name (`"*"` allows none here); `null` never passes;
 * - without either, `Sec-Fetch-Site: cross-site` refuses it; other clients that send neither
 *   (curl, scripts) pass, as browsers always send `Origin` on such writes.
 * Checked for every write the session cookie authenticates (checkCsrf) and for every call of a
 * method that starts a session (login), cookie or not: a login from another site's page would
 * sign the visitor in as the attacker (login CSRF).
 */
export function checkRequestSite(req: FastifyRequest, allowCors: CorsSettings['allowCors']): void {
  if (SAFE_VERBS.has(req.method)) return;
  const origin = claimedOrigin(req);
  if (origin !== undefined) {
    if (origin === 'null' || origin === '') throw refused('the request comes from an opaque origin');
    if (!isOwnOrigin(req, origin) && !originListed(allowCors, origin)) throw refused(`origin ${origin.slice(0, 200)} is not allowed`);
  } else if (header(req, 'sec-fetch-site') === 'cross-site') {
    throw refused('the request comes from another site');
  }
}

/**
 * Refuses a write authenticated by the session cookie that a browser sent on another site's behalf
 * (checkRequestSite), and checks the CSRF token: `X-Frappe-CSRF-Token`, when sent, must be the
 * session's token, and once a page of the session was issued one it must be sent. Token and Basic
 * requests carry no ambient credentials and are never checked.
 */
export function checkCsrf(req: FastifyRequest, session: CookieSession, allowCors: CorsSettings['allowCors']): void {
  if (SAFE_VERBS.has(req.method)) return;
  checkRequestSite(req, allowCors);
  const sent = header(req, CSRF_HEADER);
  const expected = session.csrfToken ?? null;
  if (sent === undefined && expected === null) return;
  if (sent === undefined) throw refused('the CSRF token is missing');
  if (expected === null || !tokensMatch(expected, sent)) throw refused('the CSRF token does not match');
}
