import type { MaybePromise } from '../async/maybe-promise.js';
import type { Principal } from '../auth/principal.js';
import type { Meta } from '../meta/meta.js';
import type { PermissionHookRunner } from './permission-hooks.js';
import type { ShareGrant } from './shares.js';
import type { UserPermissionRule } from './user-permissions.js';

/**
 * What permission decisions read besides the principal and metadata, each loaded only when a
 * decision needs it. Tests build one from plain arrays; a unit of work gets one from `permissionContext(ctx)`
 * (documents/unit-permissions.ts), which reads them from the database.
 */
export interface PermissionContext<Ctx = unknown> {
  readonly principal: Principal;
  readonly metaOf: (doctype: string) => Meta;
  readonly hooks: PermissionHookRunner<Ctx>;
  /** The unit of work, handed on to app hooks (the document layer's DocContext). */
  readonly ctx: Ctx;
  /** The principal's User Permission rules: at once when the principal carries them. */
  userPermissions(): MaybePromise<readonly UserPermissionRule[]>;
  /** Shares of `doctype` documents (of one, when `name` is given) with the principal or everyone. */
  shares(doctype: string, name?: string): Promise<readonly ShareGrant[]>;
  /**
   * False only when the unit's snapshot holds no share of any `doctype` document, where finding out
   * costs less than the share subquery it spares every restricted list (SQLite); absent or true
   * otherwise. Answers at once.
   */
  mayHaveShares?(doctype: string): boolean;
}
