/** Options for a {@link RenewingCache}. */
export interface RenewingCacheOptions {
  /** How long a looked-up value is reused without asking the database again (default 1000 ms). */
  readonly ttlMs?: number;
  /** The most keys remembered at once; the oldest is dropped first (default 1000). */
  readonly maxEntries?: number;
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
}

/** Looks a key up: its value, or undefined when there is none to remember (nothing is cached then). */
export type Lookup<V> = (key: string) => Promise<V | undefined>;

/**
 * The share of the TTL after which a value still in use is looked up again in the background, so
 * that a busy client's entry is renewed before it expires
 * (docs/benchmarks.md "PostgreSQL latency at 50 connections").
 */
const REFRESH_AFTER = 0.75;

interface Entry<V> {
  readonly value: V;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

/**
 * Values looked up from the database, reused for a short time: the lookup behind the token and
 * principal caches (token-cache.ts, principal-cache.ts). A key is looked up once at a time:
 * concurrent misses share one lookup, and a key used in the last quarter of its TTL is looked up
 * again in the background while its entry still answers, so a busy client's requests do not all
 * miss together when it expires. An entry's TTL counts from the start of the lookup that made it,
 * so no answer is older than the TTL. A lookup that finds nothing drops the entry at once and is
 * never cached; one that overlapped a {@link clear} is returned but not kept (it may have read the
 * state from before the change that cleared the cache), and nobody who comes after the clear
 * shares it.
 */
export class RenewingCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  /** Lookups under way, by key; a clear() forgets them (their answers are not kept). */
  readonly #inFlight = new Map<string, Promise<V | undefined>>();
  #generation = 0;

  constructor(options: RenewingCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * The still-fresh value of `key`, if any. Given `refresh`, an entry in the last quarter of its
   * TTL is looked up again in the background (once at a time); the entry answers meanwhile, until
   * its own expiry.
   */
  get(key: string, refresh?: Lookup<V>): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const now = this.#clock();
    if (now >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    if (refresh !== undefined && now >= entry.refreshAt && !this.#inFlight.has(key)) {
      // A failure (a lost database) leaves the entry to expire; the next miss meets the failure.
      this.#lookUp(key, refresh).catch(() => {});
    }
    return entry.value;
  }

  /** Records a value looked up just now. */
  set(key: string, value: V): void {
    this.#store(key, value, this.#clock());
  }

  /** The cached value of `key`, or the result of `lookup` (cached when there is one), shared by concurrent callers. */
  async resolve(key: string, lookup: Lookup<V>): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    return this.#inFlight.get(key) ?? this.#lookUp(key, lookup);
  }

  /** Forgets every value, e.g. after this process changed what they were looked up from. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#inFlight.clear();
  }

  /** How many times the cache was cleared; lets a caller see whether a unit of work cleared it. */
  get generation(): number {
    return this.#generation;
  }

  /** The number of keys currently remembered (expired ones may still count until looked up). */
  get size(): number {
    return this.#entries.size;
  }

  /** One lookup, registered as under way until it settles. */
  #lookUp(key: string, lookup: Lookup<V>): Promise<V | undefined> {
    const generation = this.#generation;
    const startedAt = this.#clock();
    const settled = () => {
      if (this.#inFlight.get(key) === pending) this.#inFlight.delete(key);
    };
    const pending = Promise.resolve(key)
      .then(lookup)
      .then(
        (value) => {
          settled();
          if (generation !== this.#generation) return value;
          if (value === undefined) this.#entries.delete(key);
          else this.#store(key, value, startedAt);
          return value;
        },
        (err: unknown) => {
          settled();
          throw err;
        },
      );
    this.#inFlight.set(key, pending);
    return pending;
  }

  #store(key: string, value: V, lookedUpAt: number): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(key, { value, refreshAt: lookedUpAt + this.#ttlMs * REFRESH_AFTER, expiresAt: lookedUpAt + this.#ttlMs });
  }
}
