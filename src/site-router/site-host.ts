import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/**
 * A site folder's name as a host name: lowercase letters, digits, dots, hyphens and underscores,
 * at most 253 characters, not starting with a dot. Nothing else can name a site, so a Host or
 * X-Frappe-Site-Name value can never reach outside the sites folder (`..`, `/`, `%2f`).
 */
const SITE_NAME = /^[a-z0-9_][a-z0-9_.-]{0,252}$/;

/** True for a string that can be a site's folder name (and so its host name). */
export function isSiteName(name: string): boolean {
  return SITE_NAME.test(name) && !name.includes('..');
}

/**
 * The site a `Host` value names: lowercased, without its port (`erp.example.com:8000`), without
 * the brackets of an IPv6 literal; undefined when what is left cannot be a site name.
 */
export function siteNameOfHost(host: string | undefined): string | undefined {
  if (!host) return undefined;
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) name = name.slice(1, name.indexOf(']') >>> 0);
  else {
    const colon = name.indexOf(':');
    if (colon !== -1) name = name.slice(0, colon);
  }
  if (name.endsWith('.')) name = name.slice(0, -1);
  return isSiteName(name) ? name : undefined;
}

/** The site an `X-Frappe-Site-Name` header names (the reference's proxy header; a port, if any, dropped). */
export function siteNameOfHeader(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['x-frappe-site-name'];
  return siteNameOfHost(Array.isArray(value) ? value[0] : value);
}

/** True for a Host that names no site by design: absent, an IP address (with or without port), or `localhost`. */
export function isLocalHost(host: string | undefined): boolean {
  if (!host) return true;
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) return isIP(name.slice(1, name.indexOf(']') >>> 0)) !== 0;
  if (isIP(name) !== 0) return true;
  const colon = name.indexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  return name === 'localhost' || isIP(name) !== 0;
}
