import type { MailService } from '../mail/register-mail.js';
import type { Principal } from '../auth/principal.js';
import type { Identity } from '../auth/identity.js';
import type { PrincipalCache } from '../auth/principal-cache.js';
import { clearPrincipalsOnChange } from '../auth/principal-invalidation.js';
import type { SessionStore } from '../auth/sessions.js';
import type { TokenCache } from '../auth/token-cache.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { UnitOptions, UnitRunner } from '../documents/unit-runner.js';
import { UserMessages } from '../documents/user-messages.js';
import type { FileStore } from '../files/file-store.js';
import type { MaybePromise } from '../async/maybe-promise.js';
import { FwError, InReadOnlyMode, SessionStopped } from '../errors/index.js';
import { MaintenanceWatch } from './maintenance.js';
import { JobQueue } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { OAuthProvider } from '../oauth/oauth-provider.js';
import type { MethodRegistry, MethodServices } from '../rpc/method-registry.js';
import type { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { StaleCheck, type Database, type DeferredCheck, type Queryable } from '../storage/database.js';
import { statementReader } from '../storage/statement-reader.js';
import { runInUnit, UnitOfWork, type UnitErrorReporter } from '../storage/unit-of-work.js';
import type { SiteConfig } from './site-config.js';
import { SettingsCache } from '../settings/settings-cache.js';
import { siteSettings } from '../settings/site-settings.js';
import type { SitePaths } from './site-paths.js';

/**
 * Ends a unit that commits nothing (a read, or detached work whose own transactions have units of
 * their own): its after-commit callbacks run once `work` succeeded, its after-rollback ones once it
 * failed. Callback-free units, nearly every read, answer with `work`'s own answer: at once when it
 * came at once (docs/benchmarks.md "Where a GET's time goes").
 */
function endsWith<T>(work: () => MaybePromise<T>, done: UnitOfWork): MaybePromise<T> {
  const failed = (err: unknown): Promise<never> => (done.seal() ? Promise.reject(err) : done.rolledBack().then(() => Promise.reject(err)));
  const succeeded = (result: T): MaybePromise<T> => (done.seal() ? result : done.committed().then(() => result));
  let outcome: MaybePromise<T>;
  try {
    outcome = work();
  } catch (err) {
    if (done.seal()) throw err;
    return failed(err);
  }
  return outcome instanceof Promise ? outcome.then(succeeded, failed) : succeeded(outcome);
}

/**
 * The outcome of work that began before its deferred check was judged: kept once the check finds
 * the state it began on current, whatever the work made of it; StaleCheck otherwise, even when
 * the work swallowed the StaleCheck its statements threw.
 */
async function checkedOutcome<T>(check: DeferredCheck, work: Promise<T>): Promise<T> {
  const outcome = await work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!(await check.settle())) throw new StaleCheck();
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** Runs a unit with its metadata check deferred, and once more, checking first, when it began on stale metadata. */
function againIfStale<T>(attempt: (mayDefer: boolean) => MaybePromise<T>, unit: UnitOptions): MaybePromise<T> {
  const again = (err: unknown): MaybePromise<T> => {
    if (!(err instanceof StaleCheck)) throw err;
    // The discarded attempt's messages are not the user's news.
    unit.messages?.reset();
    return attempt(false);
  };
  let first: MaybePromise<T>;
  try {
    first = attempt(true);
  } catch (err) {
    return again(err);
  }
  return first instanceof Promise ? first.catch(again) : first;
}

/** The few logger calls a site makes outside a request (failed after-commit work). */
export interface SiteLogger {
  error(obj: object, msg: string): void;
}

/** Until a server gives the site its logger: one JSON line on stderr, like the server's own. */
const stderrLogger: SiteLogger = {
  error(obj, msg) {
    const fields = Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, v instanceof Error ? { message: v.message, stack: v.stack } : v]));
    process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg, ...fields })}\n`);
  },
};

export type { UnitOptions } from '../documents/unit-runner.js';

/** What a Site is built from: the parts openSite() wires, by name. */
export interface SiteParts {
  paths: SitePaths;
  config: SiteConfig;
  db: Database;
  metas: MetaRegistry;
  hooks: HookRegistry;
  documents: DocumentService;
  methods: MethodRegistry;
  sessions: SessionStore;
  /** Credentials, sessions and tokens → principal (docs/architecture.md "Identity"). */
  identity: Identity;
  realtime: RealtimePublisher;
  files: FileStore;
  /** A queue on `db` when left out. */
  jobs?: JobQueue;
  mail?: MailService;
}

/** An open site: its config, database and services, wired once by openSite(). */
export class Site implements UnitRunner {
  /** The settings in effect, refreshed after each unit's metadata check; read them through siteSettings(). */
  readonly settingsCache: SettingsCache;
  /** Principals resolved by authentication, reused for up to a second (see PrincipalCache). */
  readonly principals: PrincipalCache;
  /** API tokens verified in the last second (see TokenCache). */
  readonly tokenCache: TokenCache;
  /** The OAuth2 / OpenID Connect provider, whose routes http/ serves (docs/identity.md "fw as an OAuth2 / OpenID Connect provider"); set by openSite. */
  oauth: OAuthProvider | undefined;
  /** Where failures after a commit are logged; the server replaces it with its own logger. */
  logger: SiteLogger = stderrLogger;
  /** site_config.json's maintenance keys as they are now (docs/configuration.md "Maintenance"). */
  readonly maintenance: MaintenanceWatch;
  /** What method handlers get of the site (docs/apps.md): services, never the site itself. */
  readonly services: MethodServices;
  readonly #reportCallbackError: UnitErrorReporter = (err, phase) => this.logger.error({ err, phase }, `${phase} callback failed`);

  readonly paths: SitePaths;
  readonly config: SiteConfig;
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly hooks: HookRegistry;
  readonly documents: DocumentService;
  readonly methods: MethodRegistry;
  readonly sessions: SessionStore;
  /** Credentials, sessions and tokens → principal (docs/architecture.md "Identity"). */
  readonly identity: Identity;
  /** Live events to Socket.IO and event-stream clients (docs/realtime.md). */
  readonly realtime: RealtimePublisher;
  /** The site's one file store (docs/files.md). */
  readonly files: FileStore;
  /** Background jobs in the site's database (docs/jobs.md). */
  readonly jobs: JobQueue;
  /** Outgoing mail: queue a mail in a unit of work (docs/mail.md). */
  readonly mail?: MailService;

  constructor(parts: SiteParts) {
    this.paths = parts.paths;
    this.config = parts.config;
    this.db = parts.db;
    this.metas = parts.metas;
    this.hooks = parts.hooks;
    this.documents = parts.documents;
    this.methods = parts.methods;
    this.sessions = parts.sessions;
    this.identity = parts.identity;
    this.realtime = parts.realtime;
    this.files = parts.files;
    this.jobs = parts.jobs ?? new JobQueue(parts.db);
    this.mail = parts.mail;
    const { paths, config, documents, files, sessions } = this;
    this.principals = parts.identity.principals;
    this.tokenCache = parts.identity.tokenCache;
    this.settingsCache = new SettingsCache(config);
    this.maintenance = new MaintenanceWatch(paths.config, { on: config.maintenance_mode, allowReads: config.allow_reads_during_maintenance });
    clearPrincipalsOnChange(this.hooks, this.principals, this.tokenCache);
    this.services = {
      documents,
      files,
      sessions,
      settings: () => siteSettings(this),
      write: (principal, work, unit) => this.write(principal, work, unit),
      transaction: (work) => this.transaction(work),
    };
  }

  /** The context of one unit of work. */
  context(principal: Principal, q: Queryable, writable: boolean, unit: UnitOptions = {}, work = this.newUnit()): DocContext {
    return {
      q,
      dialect: this.db.dialect,
      principal,
      metas: this.metas,
      hooks: this.hooks,
      settings: {
        timeZone: this.settingsCache.current.time_zone,
        passwordPolicy: this.settingsCache.current,
      },
      writable,
      sid: unit.sid,
      unit: work,
      messages: unit.messages ?? new UserMessages(),
    };
  }

  /** A unit of work whose failed callbacks go to this site's logger. */
  newUnit(): UnitOfWork {
    return new UnitOfWork(this.#reportCallbackError);
  }

  /**
   * Runs `work` in one transaction of its own with a unit of work: its after-commit callbacks run
   * once it committed, its after-rollback callbacks once it rolled back. For handlers that open
   * their own transactions (see {@link detached}).
   */
  async transaction<T>(work: (q: Queryable, unit: UnitOfWork) => Promise<T>): Promise<T> {
    const result = await runInUnit((w: (q: Queryable) => Promise<T>) => this.db.transaction(w), this.#reportCallbackError, work);
    // The unit's live events are on their way to every process before its caller answers anyone.
    await this.realtime.settled();
    return result;
  }

  /**
   * Runs read-only work with fresh metadata (see #checkedWork). On SQLite, work whose steps all
   * answer at once (a document GET whose permissions are decided from what the principal holds)
   * is answered at once too: callers may `await` either way.
   */
  read<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit?: UnitOptions): Promise<T>;
  read<T>(principal: Principal, work: (ctx: DocContext) => MaybePromise<T>, unit?: UnitOptions): MaybePromise<T>;
  read<T>(principal: Principal, work: (ctx: DocContext) => MaybePromise<T>, unit: UnitOptions = {}): MaybePromise<T> {
    return againIfStale((mayDefer) => {
      const done = this.newUnit();
      return endsWith(() => this.db.read((q) => this.#checkedWork(q, mayDefer, () => work(this.context(principal, q, false, unit, done)))), done);
    }, unit);
  }

  /** Runs work in one transaction with fresh metadata: all of it is stored, or none. */
  async write<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions = {}): Promise<T> {
    if (unit.request && this.maintenance.current.on) return this.#writeInMaintenance(principal, work, unit);
    const generation = this.principals.generation;
    const bumps = this.metas.bumps;
    return againIfStale(
      (mayDefer) =>
        this.transaction(async (q, done) => {
          // The unit changed a user (a request that read it while the transaction was open may have
          // cached the old state), or changed metadata, which can rename the roles principals hold:
          // clear once the change is visible. Registered first, so later callbacks see fresh principals.
          done.afterCommit(() => {
            if (this.principals.generation !== generation || this.metas.bumps !== bumps) this.principals.clear();
          });
          // A retried attempt starts with no messages: the undone one's are not the user's news.
          unit.messages?.reset();
          return this.#checkedWork(q, mayDefer, () => work(this.context(principal, q, true, unit, done)));
        }),
      unit,
    );
  }

  /**
   * A unit's work after its metadata check. Where the connection can (PostgreSQL), the check
   * travels with the unit's first statement (docs/architecture.md "The first message"): one round trip
   * less, and a unit that began on stale metadata fails with StaleCheck, for againIfStale to run
   * it once more, checking first.
   */
  #checkedWork<T>(q: Queryable, mayDefer: boolean, work: () => MaybePromise<T>): MaybePromise<T> {
    const check = mayDefer && this.settingsCache.isCurrent(this.metas) ? this.metas.deferCheck(q) : undefined;
    if (check) return checkedOutcome(check, new Promise<T>((resolve) => resolve(work())));
    const refreshing = this.#refresh(q);
    return refreshing ? refreshing.then(work) : work();
  }

  /**
   * A request's write while the site is in maintenance: with reads allowed it runs as a read unit,
   * so work that only reads (a POST list call) answers, and its first write is refused by the
   * database; that refusal, or maintenance without reads, is a 503.
   */
  async #writeInMaintenance<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions): Promise<T> {
    if (!this.maintenance.current.allowReads) throw maintenanceStop();
    try {
      return await this.read(principal, work, unit);
    } catch (err) {
      if (err instanceof FwError && err.details.readOnlyRequest === true) throw readOnlyMaintenance(err);
      throw err;
    }
  }

  /**
   * Runs work that opens its own transactions (`db.transaction`), such as a login whose failure
   * count must be stored although the call fails. Its context holds no connection: each read takes
   * one just for that statement, so waiting for a transaction can never starve the pool.
   */
  async detached<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit: UnitOptions = {}): Promise<T> {
    if (unit.usesDatabase !== false) await this.db.read(async (q) => this.#refresh(q));
    const done = this.newUnit();
    return endsWith(() => work(this.context(principal, statementReader(this.db), false, unit, done)), done);
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

  /** Closes the database after the work in flight, once the jobs held for a batch are written. */
  async close(): Promise<void> {
    await this.jobs.flushSources();
    this.maintenance.close();
    this.files.close?.();
    await this.db.close();
  }
}

/** 503 for any request while the site is in maintenance without reads. */
export function maintenanceStop(): SessionStopped {
  return new SessionStopped('The site is down for maintenance; please try again later', {
    messages: [{ message: 'The site is down for maintenance. Please try again later.', title: 'Maintenance' }],
  });
}

/** 503 for a write while the site is in maintenance with reads allowed. */
function readOnlyMaintenance(cause: unknown): InReadOnlyMode {
  return new InReadOnlyMode('The site is in read-only mode for maintenance; this change cannot be made right now', {
    messages: [{ message: 'The site is in read-only mode for maintenance. Please try again later.', title: 'Maintenance' }],
    cause,
  });
}
