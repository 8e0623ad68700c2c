import type { Principal } from './principal.js';

/** Options for {@link PrincipalCache}. */
export interface PrincipalCacheOptions {
  /** How long a resolved principal is reused without asking the database again (default 1000 ms). */
  readonly ttlMs?: number;
  /** The most users remembered at once; the oldest is dropped first (default 1000). */
  readonly maxEntries?: number;
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
}

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/**
 * Resolved principals (roles, flags, User Permission rules) by user name, reused for a short time
 * so that a client sending many requests costs one principal lookup per TTL. The TTL bounds how
 * long another process's change (a user disabled, a role taken away) can go unseen here, which
 * docs/api.md pins at one second; changes made through this process clear the cache at once (see
 * {@link clear}). Missing and disabled users are never cached, so enabling a user works at once.
 */
export class PrincipalCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry>();
  #generation = 0;

  constructor(options: PrincipalCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#clock = options.clock ?? Date.now;
  }

  /** The still-fresh principal of `user`, if any. */
  get(user: string): Principal | undefined {
    const entry = this.#entries.get(user);
    if (!entry) return undefined;
    if (this.#clock() >= entry.expiresAt) {
      this.#entries.delete(user);
      return undefined;
    }
    return entry.principal;
  }

  /**
   * The cached principal of `user`, or the result of `load` (cached when it is a principal). A load
   * that overlapped a {@link clear} is returned but not kept: it may have read the state before
   * the change that cleared the cache.
   */
  async resolve(user: string, load: () => Promise<Principal | undefined>): Promise<Principal | undefined> {
    const cached = this.get(user);
    if (cached) return cached;
    const generation = this.#generation;
    const principal = await load();
    if (principal && generation === this.#generation) this.#remember(user, principal);
    return principal;
  }

  #remember(user: string, principal: Principal): void {
    this.#entries.delete(user);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(user, { principal, expiresAt: this.#clock() + this.#ttlMs });
  }

  /** Forgets every principal, e.g. when this process changed a user, their roles or permissions. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** How many times the cache was cleared; lets a caller see whether a unit of work cleared it. */
  get generation(): number {
    return this.#generation;
  }

  /** The number of users currently remembered (expired ones may still count until looked up). */
  get size(): number {
    return this.#entries.size;
  }
}
