/** The redirect URIs of an OAuth Client's `redirect_uris`: separated by spaces or lines, as the reference's. */
export function parseRedirectUris(text: unknown): string[] {
  return typeof text === 'string' ? text.split(/\s+/).filter((u) => u !== '') : [];
}

/** Why a URI cannot be registered as a redirect URI, or undefined when it can (RFC 6749 3.1.2). */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri.slice(0, 200)} is not an absolute URI`;
  }
  if (url.hash !== '' || uri.includes('#')) return `${uri.slice(0, 200)} has a fragment`;
  if (url.protocol === 'javascript:' || url.protocol === 'data:') return `${uri.slice(0, 200)} has a forbidden scheme`;
  if (url.protocol === 'http:' && !isLoopback(url) && url.hostname !== 'localhost')
    return `${uri.slice(0, 200)}: plain http is allowed only for loopback addresses`;
  return undefined;
}

/** 127.0.0.1 or [::1]: native apps listen there on a port of their choosing (RFC 8252 7.3). */
function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === '[::1]';
}

/**
 * True when `given` is one of `registered` exactly, byte for byte; for a registered loopback URI
 * over http the port may differ, everything else not (RFC 8252 7.3).
 */
export function redirectUriAllowed(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let wanted: URL;
  try {
    wanted = new URL(given);
  } catch {
    return false;
  }
  if (wanted.protocol !== 'http:' || !isLoopback(wanted) || given.includes('#')) return false;
  return registered.some((uri) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' || !isLoopback(url)) return false;
    const withoutPort = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
    // The given URI must be written exactly as registered apart from the port.
    return withoutPort(url) === withoutPort(wanted) && given === `${wanted.protocol}//${wanted.host}${uriTail(given)}`;
  });
}

/** The path, query of a URI as written (after the authority). */
function uriTail(uri: string): string {
  const afterScheme = uri.indexOf('//') + 2;
  const slash = uri.indexOf('/', afterScheme);
  const question = uri.indexOf('?', afterScheme);
  const cut = [slash, question].filter((i) => i >= 0);
  return cut.length === 0 ? '' : uri.slice(Math.min(...cut));
}
