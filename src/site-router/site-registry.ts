import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { isLocalHost, isSiteName, siteNameOfHeader, siteNameOfHost } from './site-host.js';

/** How the registry opens and closes a site; what an open site is stays the caller's business. */
export interface SiteOpener<T> {
  /** What the registry must know of a site folder before opening it; undefined: no site there. */
  inspect(dir: string): Promise<{ readonly trustsSiteHeader: boolean } | undefined>;
  open(name: string, dir: string): Promise<T>;
  close(handle: T, name: string): Promise<void>;
}

/** Options of a SiteRegistry. */
export interface SiteRegistryOptions {
  /** The site served to a Host that names none (`default_site`; docs/deployment.md "Several sites in one process"). */
  readonly defaultSite?: string;
  /** A site with no request or socket for this long is closed (0: never). */
  readonly idleMs: number;
  /** Told of a site that could not be closed cleanly. */
  readonly onCloseError?: (err: unknown, name: string) => void;
}

interface Known {
  readonly trustsSiteHeader: boolean;
}

interface Entry<T> {
  readonly ready: Promise<T>;
  handle: T | undefined;
  /** Requests and sockets being served. */
  busy: number;
  lastUsed: number;
  closing: Promise<void> | undefined;
}

/**
 * The sites of one folder (`fw serve --sites <dir>`): which site a request names, and each site
 * opened on first use, once however many requests ask together, and closed once idle
 * (docs/architecture.md "Several sites in one process").
 */
export class SiteRegistry<T> {
  readonly #root: string;
  readonly #opener: SiteOpener<T>;
  readonly #options: SiteRegistryOptions;
  readonly #known = new Map<string, Known>();
  readonly #entries = new Map<string, Entry<T>>();
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(root: string, opener: SiteOpener<T>, options: SiteRegistryOptions) {
    this.#root = root;
    this.#opener = opener;
    this.#options = options;
    if (options.idleMs > 0) {
      this.#sweeper = setInterval(() => void this.closeIdle(), Math.max(50, Math.min(options.idleMs / 2, 30_000)));
      this.#sweeper.unref();
    }
  }

  /** Names of the sites open now. */
  get open(): string[] {
    return [...this.#entries.keys()];
  }

  /**
   * The site a request is for, in the reference's order: `X-Frappe-Site-Name` when the site it
   * names trusts that header (`trust_site_header`), else the Host without its port, else
   * `default_site` for a local or missing Host; undefined when none of them names a site. Synchronous once the names are known.
   */
  resolve(headers: IncomingHttpHeaders): string | undefined | Promise<string | undefined> {
    const named = headers['x-frappe-site-name'] === undefined ? undefined : siteNameOfHeader(headers);
    const host = siteNameOfHost(headers.host);
    const namedKnown = named === undefined ? null : this.#known.get(named);
    const hostKnown = host === undefined ? null : this.#known.get(host);
    if (namedKnown === undefined || hostKnown === undefined) return this.#resolveLearning(named, host, headers.host);
    if (named !== undefined && namedKnown?.trustsSiteHeader) return named;
    if (host !== undefined && hostKnown) return host;
    return this.#fallback(headers.host);
  }

  async #resolveLearning(named: string | undefined, host: string | undefined, rawHost: string | undefined): Promise<string | undefined> {
    if (named !== undefined && (await this.#learn(named))?.trustsSiteHeader) return named;
    if (host !== undefined && (await this.#learn(host))) return host;
    return this.#fallback(rawHost);
  }

  /**
   * `default_site`, for a request that names no host one could give a site: none at all, an
   * address, or `localhost` (local use). Any other unknown name is a 404, so a wildcard DNS entry
   * does not expose the default site under every name.
   */
  async #fallback(rawHost: string | undefined): Promise<string | undefined> {
    const name = this.#options.defaultSite;
    if (name === undefined || !isLocalHost(rawHost)) return undefined;
    return (await this.#learn(name)) ? name : undefined;
  }

  /** What the folder of site `name` says, read once (a missing folder is looked for again next time). */
  async #learn(name: string): Promise<Known | undefined> {
    const cached = this.#known.get(name);
    if (cached) return cached;
    if (!isSiteName(name)) return undefined;
    const known = await this.#opener.inspect(join(this.#root, name));
    if (known) this.#known.set(name, known);
    return known;
  }

  /**
   * The open site `name`, opening it when it is not (concurrent first requests share one
   * opening); counted busy until release(). Answers without a promise when the site is open.
   */
  acquire(name: string): T | Promise<T> {
    const entry = this.#entries.get(name);
    if (entry && !entry.closing) {
      entry.busy++;
      entry.lastUsed = performance.now();
      return entry.handle ?? entry.ready;
    }
    return this.#acquireSlow(name, entry);
  }

  async #acquireSlow(name: string, closing: Entry<T> | undefined): Promise<T> {
    if (this.#closed) throw new Error('the server is shutting down');
    if (closing) await closing.closing;
    const again = this.#entries.get(name);
    if (again) return this.acquire(name);
    const ready = this.#opener.open(name, join(this.#root, name));
    const entry: Entry<T> = { ready, handle: undefined, busy: 1, lastUsed: performance.now(), closing: undefined };
    this.#entries.set(name, entry);
    try {
      entry.handle = await ready;
    } catch (err) {
      // A site that failed to open is tried again by the next request, with its config read anew.
      if (this.#entries.get(name) === entry) this.#entries.delete(name);
      this.#known.delete(name);
      throw err;
    }
    return entry.handle;
  }

  /** Ends one acquire() of `name`. */
  release(name: string): void {
    const entry = this.#entries.get(name);
    if (!entry) return;
    entry.busy--;
    entry.lastUsed = performance.now();
  }

  /** Closes every site nobody used for the idle limit; resolves once they are closed. */
  async closeIdle(): Promise<void> {
    const limit = this.#options.idleMs;
    if (limit <= 0) return;
    const now = performance.now();
    const idle = [...this.#entries].filter(([, e]) => e.handle !== undefined && !e.closing && e.busy <= 0 && now - e.lastUsed >= limit);
    await Promise.all(idle.map(([name, entry]) => this.#close(name, entry)));
  }

  #close(name: string, entry: Entry<T>): Promise<void> {
    entry.closing ??= (async () => {
      try {
        await this.#opener.close(await entry.ready, name);
      } catch (err) {
        this.#options.onCloseError?.(err, name);
      } finally {
        this.#entries.delete(name);
        // Read again at the next opening: the config may have changed, or the folder be gone.
        this.#known.delete(name);
      }
    })();
    return entry.closing;
  }

  /** Closes every open site (server shutdown); sites asked for afterwards are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweeper) clearInterval(this.#sweeper);
    await Promise.all(
      [...this.#entries].map(async ([name, entry]) => {
        try {
          await entry.ready;
        } catch {
          return;
        }
        await this.#close(name, entry);
      }),
    );
  }
}
