import type { FastifyRequest } from 'fastify';

/** What stands in the log for a secret's value. */
export const REDACTED = '[REDACTED]';

/**
 * Query keys whose values are secrets: passwords (`pwd` of login, `new_password`, `old_password`),
 * API secrets and keys, session ids, tokens of every kind (CSRF, reset, OAuth).
 */
const SECRET_KEY = /^(pwd|passwd|sid|key|.*password.*|.*secret.*|.*token.*|api_?key|authorization|auth)$/i;

/** The decoded name of a query key; a malformed escape is judged by its raw text. */
function keyName(raw: string): string {
  const plus = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus).trim();
  } catch {
    return plus.trim();
  }
}

/**
 * `url` with the value of every secret query parameter replaced by `[REDACTED]`; the path and
 * every other parameter stay as they were sent. Clients do send `login?usr=..&pwd=..`.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_KEY.test(keyName(key)) && eq >= 0 ? `${key}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${redacted}`;
}

/** What the request logger writes of a request: Fastify's default fields, the URL redacted. */
export function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
