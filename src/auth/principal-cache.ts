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

/** Loads a user's principal; undefined for a missing or disabled user. */
export type PrincipalLoader = (user: string) => Promise<Principal | undefined>;

/**
 * The share of the TTL after which a principal still in use is loaded again in the background
 * (docs/benchmarks.md "PostgreSQL latency at 50 connections").
 */
const REFRESH_AFTER = 0.75;

interface Entry {
  readonly principal: Principal;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

/**
 * Resolved principals (roles, flags, User Permission rules) by user name, reused for a short time
 * so that a client sending many requests costs one principal lookup per TTL. The TTL bounds how
 * long another process's change (a user disabled, a role taken away) can go unseen here, which
 * docs/api.md pins at one second; changes made through this process clear the cache at once (see
 * {@link clear}). Missing and disabled users are never cached, so enabling a user works at once.
 *
 * A user's principal is loaded once at a time: concurrent misses share one load, and a principal
 * used in the last quarter of its TTL is loaded again in the background while the entry still
 * answers, so a busy user's requests do not all miss together when it expires
 * (docs/benchmarks.md "PostgreSQL latency at 50 connections"). An entry's TTL counts from the
 * start of its load.
 */
export class PrincipalCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, Entry>();
  /** Loads under way, by user; a clear() forgets them (their answers are not kept). */
  readonly #inFlight = new Map<string, Promise<Principal | undefined>>();
  #generation = 0;

  constructor(options: PrincipalCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 1000);
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * The still-fresh principal of `user`, if any. Given `refresh`, an entry in the last quarter of
   * its TTL is loaded again in the background (once at a time); the entry answers meanwhile, until
   * its own expiry.
   */
  get(user: string, refresh?: PrincipalLoader): Principal | undefined {
    const entry = this.#entries.get(user);
    if (!entry) return undefined;
    const now = this.#clock();
    if (now >= entry.expiresAt) {
      this.#entries.delete(user);
      return undefined;
    }
    if (refresh !== undefined && now >= entry.refreshAt && !this.#inFlight.has(user)) {
      // A failure (a lost database) leaves the entry to expire; the next miss meets the failure.
      this.#load(user, refresh).catch(() => {});
    }
    return entry.principal;
  }

  /**
   * The cached principal of `user`, or the result of `load` (cached when it is a principal), one
   * load shared by concurrent callers. A load that overlapped a {@link clear} is returned but not
   * kept: it may have read the state before the change that cleared the cache; a caller that
   * comes after the clear does not share it.
   */
  async resolve(user: string, load: PrincipalLoader): Promise<Principal | undefined> {
    const cached = this.get(user);
    if (cached) return cached;
    return this.#inFlight.get(user) ?? this.#load(user, load);
  }

  /** Forgets every principal, e.g. when this process changed a user, their roles or permissions. */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#inFlight.clear();
  }

  /** How many times the cache was cleared; lets a caller see whether a unit of work cleared it. */
  get generation(): number {
    return this.#generation;
  }

  /** The number of users currently remembered (expired ones may still count until looked up). */
  get size(): number {
    return this.#entries.size;
  }

  /** One load, registered as under way until it settles; a missing or disabled user drops the entry. */
  #load(user: string, load: PrincipalLoader): Promise<Principal | undefined> {
    const generation = this.#generation;
    const startedAt = this.#clock();
    const settled = () => {
      if (this.#inFlight.get(user) === promise) this.#inFlight.delete(user);
    };
    const promise = Promise.resolve(user)
      .then(load)
      .then(
        (principal) => {
          settled();
          if (generation !== this.#generation) return principal;
          if (principal) this.#remember(user, principal, startedAt);
          else this.#entries.delete(user);
          return principal;
        },
        (err: unknown) => {
          settled();
          throw err;
        },
      );
    this.#inFlight.set(user, promise);
    return promise;
  }

  #remember(user: string, principal: Principal, loadedAt: number): void {
    this.#entries.delete(user);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    this.#entries.set(user, { principal, refreshAt: loadedAt + this.#ttlMs * REFRESH_AFTER, expiresAt: loadedAt + this.#ttlMs });
  }
}
