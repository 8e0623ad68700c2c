import { SecurityException } from '../errors/index.js';
import type { Database, Queryable } from '../storage/database.js';
import { LOGIN_ATTEMPT_TABLE } from './auth-tables.js';

/** The lockout rule (site settings `allow_consecutive_login_attempts`, `allow_login_after_fail`). */
export interface ThrottleRule {
  /** Failures allowed within one window; 0 turns the throttle off. */
  readonly maxFailures: number;
  /** The window in seconds; it starts at the first failure. */
  readonly windowSeconds: number;
}

/** Options for {@link LoginThrottle}. */
export interface LoginThrottleOptions {
  /** Epoch milliseconds; injected by tests. */
  readonly clock?: () => number;
}

interface CounterRow {
  failures: number | string;
  window_start: number | string;
}

/** The counter keys of one login attempt: always the client IP, and the user once it is known. */
export function throttleKeys(input: { readonly ip: string; readonly user?: string | undefined }): string[] {
  const keys = [`ip:${input.ip}`];
  if (input.user) keys.push(`user:${input.user}`);
  return keys;
}

/** What the throttle needs of the database: transactions of its own (the site's runner) and the dialect. */
export type ThrottleDatabase = Pick<Database, 'transaction' | 'dialect'>;

/**
 * Failed-login counters per user and per client IP, kept in `__LoginAttempt` so every process
 * serving the site sees them.
 *
 * An attempt is counted before its password is checked, in a transaction of its own that commits
 * at once, and a success clears the counters again. Counting first has two reasons: the failed
 * login's own transaction rolls back (it throws), so a count written there would be lost; and a
 * burst of parallel guesses cannot slip past the limit between a check and a later increment,
 * because the atomic upsert both counts and decides.
 */
export class LoginThrottle {
  readonly #db: ThrottleDatabase;
  readonly #rule: ThrottleRule;
  readonly #clock: () => number;

  constructor(db: ThrottleDatabase, rule: ThrottleRule, options: LoginThrottleOptions = {}) {
    this.#db = db;
    this.#rule = rule;
    this.#clock = options.clock ?? Date.now;
  }

  /** True when the rule counts anything at all. */
  get enabled(): boolean {
    return this.#rule.maxFailures > 0;
  }

  /**
   * Counts one attempt against every key and commits. Throws SecurityException (429) when any key
   * has gone over the limit within its window: the caller must then not check the password at all.
   */
  async begin(keys: readonly string[]): Promise<void> {
    if (!this.enabled || keys.length === 0) return;
    const now = this.#clock();
    // Sorted, so two attempts sharing keys lock the rows in the same order (no deadlock on PostgreSQL).
    const ordered = [...new Set(keys)].sort();
    const counters = await this.#db.transaction(async (q) => {
      const rows: CounterRow[] = [];
      for (const key of ordered) rows.push(await this.#count(q, key, now));
      return rows;
    });
    const windowMs = this.#rule.windowSeconds * 1000;
    let waitMs = 0;
    for (const row of counters) {
      if (Number(row.failures) > this.#rule.maxFailures) {
        waitMs = Math.max(waitMs, Number(row.window_start) + windowMs - now);
      }
    }
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new SecurityException(`Your account has been locked and will resume after ${seconds} seconds`);
    }
  }

  /** Clears the counters of `keys` after a successful login, on the caller's connection. */
  async reset(q: Queryable, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await q.run(
      this.#db.dialect.builder
        .deleteFrom(LOGIN_ATTEMPT_TABLE)
        .where('key', 'in', [...keys])
        .compile(),
    );
  }

  /** Atomic upsert: a window that has passed starts again at this attempt. */
  async #count(q: Queryable, key: string, now: number): Promise<CounterRow> {
    const cutoff = now - this.#rule.windowSeconds * 1000;
    const t = LOGIN_ATTEMPT_TABLE;
    const rows = await q.all<CounterRow>(
      this.#db.dialect.builder
        .insertInto(t)
        .values({ key, failures: 1, window_start: now })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet((eb) => ({
            failures: eb
              .case()
              .when(`${t}.window_start`, '<=', cutoff)
              .then(1)
              .else(eb(`${t}.failures`, '+', 1))
              .end(),
            window_start: eb
              .case()
              .when(`${t}.window_start`, '<=', cutoff)
              .then(now)
              .else(eb.ref(`${t}.window_start`))
              .end(),
          })),
        )
        .returning(['failures', 'window_start'])
        .compile(),
    );
    return rows[0];
  }
}
