import { hashApiSecret } from './api-keys.js';

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
 * secret must take effect within a second (API.md "Pinned details"). Failures are never cached,
 * so a new key works at once and wrong guesses cannot fill the cache.
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

  /** Keyed on the secret's hash, never the secret itself, so a heap dump holds no usable secret. */
  #key(apiKey: string, apiSecret: string): string {
    return `${apiKey}:${hashApiSecret(apiSecret)}`;
  }

  /** The user a still-fresh verification of this token found, if any. */
  get(apiKey: string, apiSecret: string): string | undefined {
    const key = this.#key(apiKey, apiSecret);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#clock() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.user;
  }

  /** Records a successful verification. */
  set(apiKey: string, apiSecret: string, user: string): void {
    const key = this.#key(apiKey, apiSecret);
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(key, { user, expiresAt: this.#clock() + this.#ttlMs });
  }

  /** The cached user, or the result of `verify` (cached when it names a user). */
  async resolve(
    apiKey: string,
    apiSecret: string,
    verify: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const cached = this.get(apiKey, apiSecret);
    if (cached !== undefined) return cached;
    const user = await verify();
    if (user !== undefined) this.set(apiKey, apiSecret, user);
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
