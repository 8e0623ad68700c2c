import { RenewingCache, type Lookup, type RenewingCacheOptions } from './renewing-cache.js';

/** Options for {@link TokenCache}: the TTL (default 1000 ms), the most tokens kept (default 1000), a clock for tests. */
export type TokenCacheOptions = RenewingCacheOptions;

/** Verifies a token (the Authorization header's value): its user, or undefined when it authenticates nobody. */
export type TokenVerifier = Lookup<string>;

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
 * A token is verified once at a time and renewed in the background while in use (see
 * RenewingCache; docs/benchmarks.md "PostgreSQL latency at 50 connections").
 */
export class TokenCache extends RenewingCache<string> {}
