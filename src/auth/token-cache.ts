/** Options for {@link TokenCache}. */
export interface TokenCacheOptions {
  /** How long a verified token is trusted without asking the database again (default 1000 ms). */
  readonly ttlMs?: number;
  /** The most tokens remembered at once; the oldest is dropped first (default 1000). */
  readonly maxEntries?: number;
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
}

/** Verifies a token (the Authorization header's value): its user, or undefined when it authenticates nobody. */
export type TokenVerifier = (credentials: string) => Promise<string | undefined>;

/**
 * The share of the TTL after which a token still in use is verified again in the background, so
 * that a busy client's entry is renewed before it expires
 * (docs/benchmarks.md "PostgreSQL latency at 50 connections").
 */
const REFRESH_AFTER = 0.75;

interface Entry {
  readonly user: string;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

/**
 * Remembers successfully verified API tokens for a short time, so a client sending many requests
 * costs one database lookup per TTL. The TTL is short because disabling a user or regenerating a
 * secret must take effect within a second (docs/api.md). Failures are never cached,
 * so a new key works at once and wrong guesses cannot fill the cache.
 *
 * Entries are keyed on the credentials exactly as the client sent them (the Authorization header's
 * value), so a hit costs one map lookup: no parsing, no hashing. The secret is then held in memory
 * for up to the TTL after its last use, as the request's own headers are until they are collected;
 * hashing it per request (as an earlier version did) cost ~5% of a document GET.
 *
 * A token is verified once at a time: concurrent misses share one verification, and a token used
 * in the last quarter of its TTL is verified again in the background while the entry still answers
 * (docs/benchmarks.md "PostgreSQL latency at 50 connections"). An entry's TTL counts from the
 * start of the verification that made it, so no answer is older than the TTL.
 */
export class TokenCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry>();
  /** Verifications under way, by credentials; a clear() forgets them (their answers are not kept). */
  readonly #inFlight = new Map<string, Promise<string | undefined>>();
  #generation = 0;

  constructor(options: TokenCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * The user a still-fresh verification of this token found, if any. Given `refresh`, an entry in
   * the last quarter of its TTL is verified again in the background (once at a time); the entry
   * answers meanwhile, until its own expiry.
   */
  get(credentials: string, refresh?: TokenVerifier): string | undefined {
    const entry = this.#entries.get(credentials);
    if (!entry) return undefined;
    const now = this.#clock();
    if (now >= entry.expiresAt) {
      this.#entries.delete(credentials);
      return undefined;
    }
    if (refresh !== undefined && now >= entry.refreshAt && !this.#inFlight.has(credentials)) {
      // A failure (a lost database) leaves the entry to expire; the next miss meets the failure.
      this.#verify(credentials, refresh).catch(() => {});
    }
    return entry.user;
  }

  /** Records a successful verification. */
  set(credentials: string, user: string): void {
    this.#store(credentials, user, this.#clock());
  }

  /** The cached user, or the result of `verify` (cached when it names a user), shared by concurrent callers. */
  async resolve(credentials: string, verify: TokenVerifier): Promise<string | undefined> {
    const cached = this.get(credentials);
    if (cached !== undefined) return cached;
    return this.#inFlight.get(credentials) ?? this.#verify(credentials, verify);
  }

  /** Forgets every token, e.g. after this process disabled a user or rotated a secret. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#inFlight.clear();
  }

  /** The number of tokens currently remembered (expired ones may still count until looked up). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * One verification, registered as under way until it settles. Its answer is kept only when no
   * clear() happened meanwhile (it may have read the state from before the change); an answer of
   * nobody drops the entry at once.
   */
  #verify(credentials: string, verify: TokenVerifier): Promise<string | undefined> {
    const generation = this.#generation;
    const startedAt = this.#clock();
    const settled = () => {
      if (this.#inFlight.get(credentials) === pending) this.#inFlight.delete(credentials);
    };
    const pending = Promise.resolve(credentials)
      .then(verify)
      .then(
        (user) => {
          settled();
          if (generation !== this.#generation) return user;
          if (user === undefined) this.#entries.delete(credentials);
          else this.#store(credentials, user, startedAt);
          return user;
        },
        (err: unknown) => {
          settled();
          throw err;
        },
      );
    this.#inFlight.set(credentials, pending);
    return pending;
  }

  #store(credentials: string, user: string, verifiedAt: number): void {
    this.#entries.delete(credentials);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(credentials, { user, refreshAt: verifiedAt + this.#ttlMs * REFRESH_AFTER, expiresAt: verifiedAt + this.#ttlMs });
  }
}
