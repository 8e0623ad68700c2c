import type { Principal } from './principal.js';
import { RenewingCache, type Lookup, type RenewingCacheOptions } from './renewing-cache.js';

/** Options for {@link PrincipalCache}: the TTL (default 1000 ms), the most users kept (default 1000), a clock for tests. */
export type PrincipalCacheOptions = RenewingCacheOptions;

/** Loads a user's principal; undefined for a missing or disabled user. */
export type PrincipalLoader = Lookup<Principal>;

/**
 * Resolved principals (roles, flags, User Permission rules) by user name, reused for a short time
 * so that a client sending many requests costs one principal lookup per TTL. The TTL bounds how
 * long another process's change (a user disabled, a role taken away) can go unseen here, which
 * docs/api.md pins at one second; changes made through this process clear the cache at once
 * (`clear`). Missing and disabled users are never cached, so enabling a user works at once.
 *
 * A user's principal is loaded once at a time and renewed in the background while in use (see
 * RenewingCache; docs/benchmarks.md "PostgreSQL latency at 50 connections").
 */
export class PrincipalCache extends RenewingCache<Principal> {}
