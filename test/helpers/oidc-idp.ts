import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** Claims an account of the test IdP answers with (sub is its id). */
export interface IdpClaims {
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly given_name?: string;
  readonly family_name?: string;
}

/**
 * A real OpenID Connect provider (oidc-provider) in a child process on 127.0.0.1
 * (oidc-idp-server.mjs), with one confidential client whose redirect URIs are fw's callbacks.
 */
export class OidcIdp {
  readonly #child: ChildProcess;
  readonly issuer: string;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.issuer = `http://127.0.0.1:${port}`;
  }

  static async start(client: { clientId: string; clientSecret: string; redirectUris: string[] }): Promise<OidcIdp> {
    const script = fileURLToPath(new URL('./oidc-idp-server.mjs', import.meta.url));
    const child = spawn(process.execPath, [script, JSON.stringify(client)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk) => {
      errors += String(chunk);
    });
    // Read on for the child's whole life: a closed pipe would kill it at its next write.
    const out = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout?.on('data', (chunk) => {
        text += String(chunk);
        if (text.includes('\n')) resolve(text);
      });
      child.once('exit', () => resolve(text));
    });
    if (!out.includes('port')) {
      child.kill();
      throw new Error(`the test IdP did not start: ${errors}`);
    }
    return new OidcIdp(child, (JSON.parse(out.split('\n')[0]!) as { port: number }).port);
  }

  /** Creates or changes an account. */
  async setAccount(id: string, claims: IdpClaims): Promise<void> {
    const res = await fetch(`${this.issuer}/_test/accounts/${encodeURIComponent(id)}`, { method: 'PUT', body: JSON.stringify(claims) });
    if (!res.ok) throw new Error(await res.text());
  }

  /** The account the next interaction logs in. */
  async loginNextAs(id: string): Promise<void> {
    const res = await fetch(`${this.issuer}/_test/next-login`, { method: 'POST', body: JSON.stringify({ accountId: id }) });
    if (!res.ok) throw new Error(await res.text());
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    this.#child.kill();
    await once(this.#child, 'exit');
  }
}

/** A browser's cookie jar and redirect following, enough for fw → IdP → fw. */
export class CookieBrowser {
  readonly #jars = new Map<string, Map<string, string>>();

  cookie(origin: string, name: string): string | undefined {
    return this.#jars.get(origin)?.get(name);
  }

  #remember(url: URL, res: Response): void {
    const jar = this.#jars.get(url.origin) ?? new Map<string, string>();
    this.#jars.set(url.origin, jar);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  /** One request with this browser's cookies for that origin, no redirect followed. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const jar = this.#jars.get(u.origin);
    const headers = new Headers(init.headers);
    if (jar && jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.#remember(u, res);
    return res;
  }

  /**
   * Follows redirects from `url` until an answer that is not a redirect, or until `stopAt` says so
   * for the next location (answered unfollowed, so a test can tamper with it). Returns the last
   * response and every URL visited.
   */
  async follow(url: string, stopAt?: (next: URL) => boolean): Promise<{ res: Response; visited: string[]; next?: string }> {
    const visited: string[] = [];
    let current = url;
    for (let hops = 0; hops < 20; hops++) {
      visited.push(current);
      const res = await this.fetch(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, visited };
      const next = new URL(location, current);
      if (stopAt?.(next)) return { res, visited, next: next.href };
      await res.arrayBuffer();
      current = next.href;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}
