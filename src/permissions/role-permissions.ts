import type { DocPerm, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/** Who is asking: the user and the roles they hold (automatic roles included). */
export interface Actor {
  readonly user: string;
  readonly roles: ReadonlySet<string>;
  readonly isAdministrator: boolean;
}

/** What the role permissions grant for one right: nothing, only own documents, or everything. */
export type Grant = 'none' | 'own' | 'all';

/** The DocPerm rows at permlevel 0 that apply to the actor's roles. */
function applicableRows(actor: Actor, meta: Meta): DocPerm[] {
  return (meta.def.permissions ?? []).filter((p) => (p.permlevel ?? 0) === 0 && actor.roles.has(p.role));
}

/** What one set of roles is granted on one Meta, filled as rights are asked for. */
interface RoleDecisions {
  readonly grants: Partial<Record<PermissionType, Grant>>;
  readonly levels: { read?: ReadonlySet<number>; write?: ReadonlySet<number> };
}

/**
 * Decisions per Meta and role set. Both keys are immutable and replaced, never changed: a Meta
 * when its DocType's metadata changes, a role set when the principal is resolved again; so an
 * entry can never be stale and goes with its keys (docs/benchmarks.md "What keeps the hot path fast").
 */
const decisions = new WeakMap<Meta, WeakMap<ReadonlySet<string>, RoleDecisions>>();

function decisionsOf(actor: Actor, meta: Meta): RoleDecisions {
  let byRoles = decisions.get(meta);
  if (!byRoles) {
    byRoles = new WeakMap();
    decisions.set(meta, byRoles);
  }
  let known = byRoles.get(actor.roles);
  if (!known) {
    known = { grants: {}, levels: {} };
    byRoles.set(actor.roles, known);
  }
  return known;
}

/**
 * The union of the actor's DocPerm rows for `right` (docs/architecture.md "Permissions"): a row without if_owner
 * grants everything; rows that only grant with if_owner restrict to the owner's documents
 * (`create` is never restricted by if_owner). Read implies select; submit needs a submittable DocType.
 */
export function roleGrant(actor: Actor, meta: Meta, right: PermissionType): Grant {
  if (actor.isAdministrator) return 'all';
  const known = decisionsOf(actor, meta).grants;
  return (known[right] ??= decideGrant(actor, meta, right));
}

function decideGrant(actor: Actor, meta: Meta, right: PermissionType): Grant {
  if ((right === 'submit' || right === 'cancel' || right === 'amend') && !meta.isSubmittable) return 'none';
  let grant: Grant = 'none';
  for (const row of applicableRows(actor, meta)) {
    const granted = row[right] === 1 || (right === 'select' && row.read === 1);
    if (!granted) continue;
    if (row.if_owner === 1 && right !== 'create') grant = grant === 'all' ? 'all' : 'own';
    else return 'all';
  }
  return grant;
}

/** True when `right` is granted on `doc` (or on the DocType, when no document is given). */
export function hasPermission(actor: Actor, meta: Meta, right: PermissionType, doc?: { readonly owner?: unknown }): boolean {
  const grant = roleGrant(actor, meta, right);
  if (grant === 'all') return true;
  if (grant === 'none') return false;
  if (doc === undefined) return true;
  // Exact: user names are unique without regard to case (auth/user-names.ts), and a comparison
  // that ignored case would hand one user's documents to another (docs/security.md).
  return typeof doc.owner === 'string' && doc.owner === actor.user;
}

/** The permlevels whose fields the actor may read (`read`) or write (`write`). */
export function permittedLevels(actor: Actor, meta: Meta, right: 'read' | 'write'): ReadonlySet<number> {
  if (actor.isAdministrator) return ALL_LEVELS;
  const known = decisionsOf(actor, meta).levels;
  return (known[right] ??= decideLevels(actor, meta, right));
}

function decideLevels(actor: Actor, meta: Meta, right: 'read' | 'write'): ReadonlySet<number> {
  const levels = new Set<number>();
  for (const row of meta.def.permissions ?? []) {
    if (actor.roles.has(row.role) && (row[right] === 1 || (right === 'read' && row.write === 1))) {
      levels.add(row.permlevel ?? 0);
    }
  }
  return levels;
}

const ALL_LEVELS: ReadonlySet<number> = new Set(Array.from({ length: 10 }, (_, i) => i));
