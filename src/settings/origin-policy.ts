/**
 * Which browser origins the site trusts (setting `allow_cors`): the one policy behind CORS answers
 * (http/cors.ts), the CSRF origin check (http/csrf.ts) and realtime clients' origins
 * (docs/security.md "CORS").
 */

/** `"*"` for any origin, a list of origins, or null when browsers from other origins get nothing. */
export type AllowCors = '*' | readonly string[] | null;

/** Origins compare without case and without a trailing slash, which a hand-written list may carry. */
function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/**
 * True when a browser at `origin` may read answers under `allowCors`: any origin with `"*"`, a
 * listed one otherwise. The opaque origin `null` (sandboxed frames, `file:` pages, some redirects)
 * never is: any page can make itself one (docs/security.md, "CORS").
 */
export function originAllowed(allowCors: AllowCors, origin: string | undefined): origin is string {
  if (!origin || allowCors === null || normaliseOrigin(origin) === 'null') return false;
  return allowCors === '*' || originListed(allowCors, origin);
}

/**
 * True when `allowCors` names `origin` itself: such an origin gets credentials and may write
 * with the session cookie (http/csrf.ts); `"*"` names no origin.
 */
export function originListed(allowCors: AllowCors, origin: string): boolean {
  if (allowCors === null || allowCors === '*') return false;
  const wanted = normaliseOrigin(origin);
  return wanted !== 'null' && allowCors.some((allowed) => normaliseOrigin(allowed) === wanted);
}
