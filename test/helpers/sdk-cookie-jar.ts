import type { FrappeApp } from 'frappe-js-sdk';

/** The cookies a client holds, by name. */
export type CookieJar = Map<string, string>;

/** One `Set-Cookie` line as name, value, and whether it asks to drop the cookie. */
function parseSetCookie(line: string): { name: string; value: string; expired: boolean } | undefined {
  const [pair, ...attributes] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  const value = decodeURIComponent(pair.slice(eq + 1).trim());
  const expired = attributes.some((a) => {
    const [key, raw = ''] = a.trim().split('=');
    if (key.toLowerCase() === 'max-age') return Number(raw) <= 0;
    if (key.toLowerCase() === 'expires') return Date.parse(raw) <= Date.now();
    return false;
  });
  return { name, value, expired };
}

/**
 * Gives an SDK instance what a browser's `withCredentials` would: axios in Node keeps no cookies,
 * so this stores every `Set-Cookie` the server answers and sends them back on each request.
 * Returns the jar, so a test can look at (or tamper with) what the client holds.
 */
export function keepCookies(app: FrappeApp): CookieJar {
  const jar: CookieJar = new Map();
  app.axios.interceptors.request.use((config) => {
    if (jar.size > 0) {
      config.headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; '));
    }
    return config;
  });
  const store = (headers: unknown) => {
    const raw = (headers as Record<string, unknown> | undefined)?.['set-cookie'];
    const lines = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
    for (const line of lines) {
      const parsed = parseSetCookie(String(line));
      if (!parsed) continue;
      if (parsed.expired) jar.delete(parsed.name);
      else jar.set(parsed.name, parsed.value);
    }
  };
  app.axios.interceptors.response.use(
    (response) => {
      store(response.headers);
      return response;
    },
    (error: unknown) => {
      store((error as { response?: { headers?: unknown } }).response?.headers);
      return Promise.reject(error);
    },
  );
  return jar;
}
