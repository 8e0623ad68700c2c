import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import { statementReader } from '../storage/statement-reader.js';
import { SESSIONS_TABLE } from './auth-tables.js';

/** Options for {@link SessionStore}. */
export interface SessionStoreOptions {
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
  /** The least time between two expiry refreshes of one session (default 60 000 ms). */
  readonly refreshIntervalMs?: number;
}

/** What a login records about the new session. */
export interface NewSession {
  readonly user: string;
  readonly ip?: string | null;
  readonly userAgent?: string | null;
  /** Idle time after which the session ends (site setting, default 7 days). */
  readonly expirySeconds: number;
}

/** How long sessions last; passed on every call so a changed setting applies at once. */
export interface SessionExpiry {
  readonly expirySeconds: number;
}

/** A live session found by its sid. */
export interface ResolvedSession {
  readonly sid: string;
  readonly user: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  /** True when the sliding expiry should be written now (see {@link SessionStore.refresh}). */
  readonly refreshDue: boolean;
  /** The session's CSRF token, once one was issued to a page (docs/security.md, "CSRF"). */
  readonly csrfToken: string | null;
}

/** A resolved session as requests see it. */
export interface LiveSession {
  readonly user: string;
  readonly sid: string;
  readonly csrfToken: string | null;
}

interface SessionRow {
  user: string;
  last_updated: number | string;
  expires_at: number | string;
  csrf_token: string | null;
}

const SID_PATTERN = /^[0-9a-f]{56}$/;

/** Read on every request that carries a session cookie, so built once. */
const lookupStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (sid: string) =>
    dialect.builder.selectFrom(SESSIONS_TABLE).select(['user', 'last_updated', 'expires_at', 'csrf_token']).where('sid', '=', sid).compile(),
  ),
);

/**
 * Server-side sessions in the site database, so any process can serve any session. Expiry slides
 * with use, but the new expiry is written at most once per refresh interval per session, so busy
 * clients do not cost a write per request. Times are epoch milliseconds.
 */
export class SessionStore {
  readonly #dialect: Dialect;
  readonly #clock: () => number;
  readonly #refreshIntervalMs: number;

  constructor(dialect: Dialect, options: SessionStoreOptions = {}) {
    this.#dialect = dialect;
    this.#clock = options.clock ?? Date.now;
    this.#refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
  }

  /** Starts a session; the sid is 56 hex characters (224 random bits), as the reference's. */
  async create(q: Queryable, session: NewSession): Promise<{ sid: string; expiresAt: number }> {
    const sid = randomBytes(28).toString('hex');
    const now = this.#clock();
    const expiresAt = now + session.expirySeconds * 1000;
    await q.run(
      this.#dialect.builder
        .insertInto(SESSIONS_TABLE)
        .values({
          sid,
          user: session.user,
          created: now,
          last_updated: now,
          expires_at: expiresAt,
          ip: session.ip ?? null,
          user_agent: session.userAgent ?? null,
        })
        .compile(),
    );
    return { sid, expiresAt };
  }

  /**
   * Finds a live session without writing anything. Unknown, malformed and expired sids give
   * undefined; so does a session idle for longer than the current `expirySeconds`, so shortening
   * the setting ends old sessions too.
   */
  async lookup(q: Queryable, sid: string, expiry: SessionExpiry): Promise<ResolvedSession | undefined> {
    if (!SID_PATTERN.test(sid)) return undefined;
    const rows = await q.all<SessionRow>(lookupStatement(this.#dialect)(sid));
    if (rows.length === 0) return undefined;
    // PostgreSQL hands bigint columns back as strings.
    const lastUpdated = Number(rows[0].last_updated);
    const expiresAt = Number(rows[0].expires_at);
    const now = this.#clock();
    if (now >= expiresAt || now >= lastUpdated + expiry.expirySeconds * 1000) return undefined;
    const csrfToken = rows[0].csrf_token ?? null;
    return { sid, user: rows[0].user, expiresAt, refreshDue: now - lastUpdated >= this.#refreshIntervalMs, csrfToken };
  }

  /**
   * Slides a live session's expiry to now + `expirySeconds`. Writes nothing when another process
   * refreshed it within the interval or it has expired meanwhile. Returns the new expiry when written.
   */
  async refresh(q: Queryable, sid: string, expiry: SessionExpiry): Promise<number | undefined> {
    const now = this.#clock();
    const expiresAt = now + expiry.expirySeconds * 1000;
    const { changes } = await q.run(
      this.#dialect.builder
        .updateTable(SESSIONS_TABLE)
        .set({ last_updated: now, expires_at: expiresAt })
        .where('sid', '=', sid)
        .where('expires_at', '>', now)
        .where('last_updated', '<=', now - this.#refreshIntervalMs)
        .compile(),
    );
    return changes > 0 ? expiresAt : undefined;
  }

  /** {@link lookup} then, when due, {@link refresh} on the same connection, which must accept writes. */
  async resolve(q: Queryable, sid: string, expiry: SessionExpiry): Promise<LiveSession | undefined> {
    const found = await this.lookup(q, sid, expiry);
    if (!found) return undefined;
    if (found.refreshDue) await this.refresh(q, sid, expiry);
    return { user: found.user, sid, csrfToken: found.csrfToken };
  }

  /**
   * {@link resolve} for a whole database: the lookup runs as a read, and a write transaction is
   * opened only when a refresh is due, so most requests take no write lock.
   */
  async resolveIn(db: Database, sid: string, expiry: SessionExpiry): Promise<LiveSession | undefined> {
    const found = await this.lookup(statementReader(db), sid, expiry);
    if (!found) return undefined;
    if (found.refreshDue) await db.transaction((q) => this.refresh(q, sid, expiry));
    return { user: found.user, sid, csrfToken: found.csrfToken };
  }

  /**
   * The session's CSRF token, issued now when it has none (the reference issues it when a page is
   * rendered). From then on every cookie write of the session must carry it in
   * `X-Frappe-CSRF-Token` (http/csrf.ts). Undefined when the session does not exist.
   */
  async issueCsrfToken(q: Queryable, sid: string): Promise<string | undefined> {
    const fresh = randomBytes(32).toString('hex');
    const b = this.#dialect.builder;
    // Only a session without a token gets this one: two pages loading at once agree on one token.
    await q.run(b.updateTable(SESSIONS_TABLE).set({ csrf_token: fresh }).where('sid', '=', sid).where('csrf_token', 'is', null).compile());
    const rows = await q.all<{ csrf_token: string | null }>(b.selectFrom(SESSIONS_TABLE).select('csrf_token').where('sid', '=', sid).compile());
    return rows[0]?.csrf_token ?? undefined;
  }

  /** Ends one session (logout); unknown sids are ignored. */
  async destroy(q: Queryable, sid: string): Promise<void> {
    await q.run(this.#dialect.builder.deleteFrom(SESSIONS_TABLE).where('sid', '=', sid).compile());
  }

  /**
   * Ends every session of `user` except, optionally, one (the session that changed the password).
   * Returns how many ended.
   */
  async destroyAllForUser(q: Queryable, user: string, options: { except?: string } = {}): Promise<number> {
    let query = this.#dialect.builder.deleteFrom(SESSIONS_TABLE).where('user', '=', user);
    if (options.except !== undefined) query = query.where('sid', '!=', options.except);
    const { changes } = await q.run(query.compile());
    return changes;
  }

  /** Deletes expired sessions; expired ones are already ignored, this only reclaims space. */
  async purgeExpired(q: Queryable): Promise<number> {
    const { changes } = await q.run(this.#dialect.builder.deleteFrom(SESSIONS_TABLE).where('expires_at', '<=', this.#clock()).compile());
    return changes;
  }
}
