import { ValidationError } from '../errors/index.js';

/** Where a login lands when it names no target. */
export const DEFAULT_LANDING = '/app';

/**
 * The path a login may send the browser to once signed in: only this site (docs/identity.md
 * "Single sign-on"). A path, or an absolute URL of this very origin, becomes a path; anything
 * else (another host, `//host`, `/\host`, a scheme such as `javascript:`) is refused, so fw is
 * never an open redirect.
 */
export function safeRedirectPath(value: unknown, ownOrigins: readonly string[]): string {
  if (value === undefined || value === null || value === '') return DEFAULT_LANDING;
  const refused = () => new ValidationError('redirect_to must be a path of this site, such as /app');
  if (typeof value !== 'string' || value.length > 2000 || /[\\\u0000-\u001f\u007f]/.test(value)) throw refused();
  const isPath = value.startsWith('/') && !value.startsWith('//');
  let url: URL;
  try {
    url = isPath ? new URL(value, ownOrigins[0]) : new URL(value);
  } catch {
    throw refused();
  }
  if (!ownOrigins.includes(url.origin)) throw refused();
  return `${url.pathname}${url.search}${url.hash}`;
}
