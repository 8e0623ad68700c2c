import type { PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Actor } from './role-permissions.js';

/** Roles users hold without being given them (docs/architecture.md "Permissions"): they say nothing about who the user is. */
export const AUTOMATIC_ROLES: ReadonlySet<string> = new Set(['Administrator', 'Guest', 'All', 'Desk User']);

/**
 * True when the actor holds a role that is not automatic and whose permlevel-0 DocPerm row grants
 * `right` (the reference's `get_doctype_roles` minus AUTOMATIC_ROLES): the test controllers such as
 * ToDo's use to tell a manager from an ordinary user.
 */
export function holdsExplicitRoleFor(actor: Actor, meta: Meta, right: PermissionType): boolean {
  return (meta.def.permissions ?? []).some(
    (row) => (row.permlevel ?? 0) === 0 && row[right] === 1 && !AUTOMATIC_ROLES.has(row.role) && actor.roles.has(row.role),
  );
}
