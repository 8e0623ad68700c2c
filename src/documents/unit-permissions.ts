import type { MaybePromise } from '../async/maybe-promise.js';
import type { PermissionContext } from '../permissions/permission-context.js';
import type { UserPermissionRule } from '../permissions/user-permissions.js';
import type { DocContext } from './doc-context.js';
import { anyShareOf, loadShares, loadUserPermissions } from './permission-rows.js';

/**
 * One context per DocContext, so a unit's User Permission rules are read at most once. Kept on the
 * DocContext itself, not in a WeakMap keyed by it: V8's scavenges keep a WeakMap's young entries
 * alive, so every request's context and closures were promoted to the old generation, hundreds of
 * bytes a GET that only a full collection frees (docs/benchmarks.md "Promoted garbage").
 * Not enumerable: a context copied with another principal (`{ ...ctx, principal }`) starts afresh.
 */
const PERMISSIONS = Symbol('permission context');
type WithPermissions = DocContext & { [PERMISSIONS]?: PermissionContext };

/**
 * The permission context of one unit of work: rules and shares come from the database of `ctx`.
 * The User Permission rules are those the principal carries (read when it was resolved, at most a
 * second ago) or else read once per unit of work; either way a rule stored by the same request
 * applies from the next one. Shares are read afresh each time, since a request may create one and
 * rely on it.
 */
export function permissionContext(ctx: DocContext): PermissionContext {
  const known = (ctx as WithPermissions)[PERMISSIONS];
  // The principal check guards against a context that inherits another's (never made so today).
  if (known && known.principal === ctx.principal) return known;
  let rules: MaybePromise<readonly UserPermissionRule[]> | undefined;
  const { q, dialect, principal } = ctx;
  const pc: PermissionContext = {
    principal,
    metaOf: (d) => ctx.metas.get(d),
    hooks: ctx.hooks.permissions,
    ctx,
    userPermissions() {
      // Authentication reads the rules along with a cached principal; others read them here.
      rules ??= principal.userPermissions ?? loadUserPermissions(q, dialect, principal.user);
      return rules;
    },
    shares: (doctype, name) => loadShares(q, dialect, principal.user, doctype, name),
    mayHaveShares: (doctype) => anyShareOf(q, dialect, doctype) !== false,
  };
  Object.defineProperty(ctx, PERMISSIONS, { value: pc, configurable: true });
  return pc;
}
