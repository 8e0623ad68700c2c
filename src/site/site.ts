import type { Principal } from '../auth/principal.js';
import { PrincipalCache } from '../auth/principal-cache.js';
import { clearPrincipalsOnChange } from '../auth/principal-invalidation.js';
import type { SessionStore } from '../auth/sessions.js';
import type { TokenCache } from '../auth/token-cache.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Database, Queryable } from '../storage/database.js';
import { statementReader } from '../storage/statement-reader.js';
import type { SiteConfig } from './site-config.js';
import { SettingsCache } from './site-settings.js';
import type { SitePaths } from './site-paths.js';

/** Facts about the request a unit of work runs for, beyond the principal. */
export interface UnitOptions {
  /** The session the request came with, if any. */
  readonly sid?: string;
  /** False for work that never touches the database (liveness): skips the metadata check. */
  readonly usesDatabase?: boolean;
}

/** An open site: its config, database and services, wired once by openSite(). */
export class Site {
  /** The settings in effect, refreshed after each unit's metadata check; read them through siteSettings(). */
  readonly settingsCache: SettingsCache;
  /** Principals resolved by authentication, reused for up to a second (see PrincipalCache). */
  readonly principals = new PrincipalCache();

  constructor(
    readonly paths: SitePaths,
    readonly config: SiteConfig,
    readonly db: Database,
    readonly metas: MetaRegistry,
    readonly hooks: HookRegistry,
    readonly documents: DocumentService,
    readonly methods: MethodRegistry,
    readonly sessions: SessionStore,
    readonly tokenCache: TokenCache,
  ) {
    this.settingsCache = new SettingsCache(config);
    clearPrincipalsOnChange(hooks, this.principals);
  }

  /** The context of one unit of work. */
  context(principal: Principal, q: Queryable, writable: boolean, unit: UnitOptions = {}): DocContext {
    return {
      q,
      dialect: this.db.dialect,
      principal,
      metas: this.metas,
      hooks: this.hooks,
      settings: { timeZone: this.settingsCache.current.time_zone, encryptionKey: this.config.encryption_key },
      writable,
      sid: unit.sid,
    };
  }

  /** Runs read-only work with fresh metadata. */
  async read<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions = {}): Promise<T> {
    return this.db.read(async (q) => {
      const refreshing = this.#refresh(q);
      if (refreshing) await refreshing;
      return work(this.context(principal, q, false, unit));
    });
  }

  /** Runs work in one transaction with fresh metadata: all of it is stored, or none. */
  async write<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions = {}): Promise<T> {
    const generation = this.principals.generation;
    const bumps = this.metas.bumps;
    const result = await this.db.transaction(async (q) => {
      await this.#refresh(q);
      return work(this.context(principal, q, true, unit));
    });
    // The unit changed a user (a request that read it while the transaction was open may have
    // cached the old state), or changed metadata, which can rename the roles principals hold:
    // clear now that the change is visible.
    if (this.principals.generation !== generation || this.metas.bumps !== bumps) this.principals.clear();
    return result;
  }

  /**
   * Runs work that opens its own transactions (`db.transaction`), such as a login whose failure
   * count must be stored although the call fails. Its context holds no connection: each read takes
   * one just for that statement, so waiting for a transaction can never starve the pool.
   */
  async detached<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions = {}): Promise<T> {
    if (unit.usesDatabase !== false) await this.db.read(async (q) => this.#refresh(q));
    return work(this.context(principal, statementReader(this.db), false, unit));
  }

  /**
   * The metadata check every unit starts with, and the settings that depend on it. Nothing to do
   * (the common case) answers without a promise.
   */
  #refresh(q: Queryable): Promise<void> | undefined {
    const loads = this.metas.loads;
    const refreshing = this.metas.refreshIfStale(q);
    if (!refreshing && this.settingsCache.isCurrent(this.metas)) return undefined;
    return this.#finishRefresh(q, refreshing, loads);
  }

  async #finishRefresh(q: Queryable, refreshing: Promise<void> | undefined, loads: number): Promise<void> {
    await refreshing;
    // Another process changed metadata (perhaps renaming a role): principals resolved before are suspect.
    if (this.metas.loads !== loads) this.principals.clear();
    await this.settingsCache.refresh(q, this.db.dialect, this.metas);
  }

  /** Closes the database after the work in flight. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
