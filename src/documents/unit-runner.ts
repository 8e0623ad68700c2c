import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../storage/database.js';
import type { UnitOfWork } from '../storage/unit-of-work.js';
import type { DocContext } from './doc-context.js';
import type { UserMessages } from './user-messages.js';

/** Facts about the request a unit of work runs for, beyond the principal. */
export interface UnitOptions {
  /** The session the request came with, if any. */
  readonly sid?: string;
  /** False for work that never touches the database (liveness): skips the metadata check. */
  readonly usesDatabase?: boolean;
  /** Where the unit's messages for the user go (the request's list); a fresh one otherwise. */
  readonly messages?: UserMessages;
  /**
   * True for the units of an HTTP request: maintenance applies to them (docs/configuration.md
   * "Maintenance"). Background jobs and the CLI's operator work go on.
   */
  readonly request?: boolean;
}

/**
 * The site's transaction runner, as code below the composition root sees it (docs/architecture.md,
 * "Units of work and transactions"): `Site` implements it.
 */
export interface UnitRunner {
  /** Runs work in one write transaction with fresh metadata: all of it is stored, or none. */
  write<T>(principal: Principal, work: (ctx: DocContext) => Promise<T>, unit?: UnitOptions): Promise<T>;
  /**
   * Runs `work` in one transaction of its own with a unit of work: its after-commit callbacks run
   * once it committed, its after-rollback callbacks once it rolled back.
   */
  transaction<T>(work: (q: Queryable, unit: UnitOfWork) => Promise<T>): Promise<T>;
}
