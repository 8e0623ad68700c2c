import type { Principal } from '../auth/principal.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { UnitOfWork } from '../storage/unit-of-work.js';
import type { HookRegistry } from './hooks.js';
import type { UserMessages } from './user-messages.js';

/** Site settings the document layer reads. */
export interface DocSettings {
  readonly timeZone: string;
  /** The password strength policy in effect (site_config.json, System Settings); off when absent. */
  readonly passwordPolicy?: { readonly enable_password_policy: boolean; readonly minimum_password_score: number };
}

/**
 * Everything one unit of work needs, passed explicitly (no ambient request state): the connection
 * of the current transaction, the acting principal and the site's registries.
 */
export interface DocContext {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly principal: Principal;
  readonly metas: MetaRegistry;
  readonly hooks: HookRegistry;
  readonly settings: DocSettings;
  /** True inside a write transaction; false for read-only units (GET requests). */
  readonly writable: boolean;
  /** The login session the request came with, if any (a password change keeps this one alive). */
  readonly sid?: string;
  /** The unit of work: what runs after it commits or rolls back (docs/architecture.md, "After a commit"). */
  readonly unit: UnitOfWork;
  /** Messages for the user, sent with a successful answer (the reference's `msgprint`; docs/api.md "Messages"). */
  readonly messages: UserMessages;
}
