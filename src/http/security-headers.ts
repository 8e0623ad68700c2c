import type { FastifyReply } from 'fastify';

/**
 * Headers every answer carries (docs/security.md, "Headers"): no content sniffing (a JSON answer or
 * an uploaded text file is never run as a script or page), no URLs (document names, file names in
 * query strings) sent to other sites as Referer, and no framing by other origins (the desk at /app
 * must not be clickjacked). A route that sets a stricter value of its own (the admin UI page:
 * its CSP and `X-Frame-Options: DENY`; sandboxed active file content) keeps it.
 */
const FIXED: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'same-origin'],
  ['X-Frame-Options', 'SAMEORIGIN'],
];
const FRAME_POLICY = "frame-ancestors 'self'";

/** The same headers as name/value pairs, for answers written outside Fastify (framework-errors.ts). */
export function securityHeaderPairs(): Array<readonly [string, string]> {
  return [...FIXED, ['Content-Security-Policy', FRAME_POLICY]];
}

/** Adds the security headers to `reply`, keeping those the route set itself. */
export function setSecurityHeaders(reply: FastifyReply): void {
  for (const [name, value] of FIXED) if (!reply.hasHeader(name)) reply.header(name, value);
  if (!reply.hasHeader('content-security-policy')) reply.header('Content-Security-Policy', FRAME_POLICY);
}
