/** Options for {@link TokenCache}. */
export interface TokenCacheOptions {
  /** How long a verified token is trusted without asking the database again (default 1000 ms). */
  readonly ttlMs?: number;
  /** The most tokens remembered at once; the oldest is dropped first (default 1000). */
  readonly maxEntries?: number;
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
}

interface Entry {
  readonly user: string;
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
 */
export class TokenCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: TokenCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#clock = options.clock ?? Date.now;
  }

  /** The user a still-fresh verification of this token found, if any. */
  get(credentials: string): string | undefined {
    const entry = this.#entries.get(credentials);
    if (!entry) return undefined;
    if (this.#clock() >= entry.expiresAt) {
      this.#entries.delete(credentials);
      return undefined;
    }
    return entry.user;
  }

  /** Records a successful verification. */
  set(credentials: string, user: string): void {
    this.#entries.delete(credentials);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(credentials, { user, expiresAt: this.#clock() + this.#ttlMs });
  }

  /** The cached user, or the result of `verify` (cached when it names a user). */
  async resolve(credentials: string, verify: () => Promise<string | undefined>): Promise<string | undefined> {
    const cached = this.get(credentials);
    if (cached !== undefined) return cached;
    const user = await verify();
    if (user !== undefined) this.set(credentials, user);
    return user;
  }

  /** Forgets every token, e.g. after this process disabled a user or rotated a secret. */
  clear(): void {
    this.#entries.clear();
  }

  /** The number of tokens currently remembered (expired ones may still count until looked up). */
  get size(): number {
    return this.#entries.size;
  }
}
