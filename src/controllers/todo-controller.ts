import type { Principal } from '../auth/principal.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { Doc } from '../meta/doctype.js';
import { holdsExplicitRoleFor } from '../permissions/automatic-roles.js';

/** True when the ToDo is assigned to the user or was assigned by them. */
function isAssignee(doc: Doc, principal: Principal): boolean {
  return doc.allocated_to === principal.user || doc.assigned_by === principal.user;
}

/**
 * ToDo's permission rule (docs/architecture.md "Permissions"): a user whose role `All` is all that grants a right on
 * ToDo (everyone but managers) reaches only the ToDos allocated to them or assigned by them, for
 * every right, creating included; lists are limited the same way. A role that is not automatic and
 * grants the right (in practice System Manager) lifts the rule.
 */
export function registerToDoController(hooks: HookRegistry): void {
  hooks.permissions.onHasPermission('ToDo', ({ doc, meta, right, principal }) => holdsExplicitRoleFor(principal, meta, right) || isAssignee(doc, principal));
  hooks.permissions.onQueryConditions('ToDo', ({ meta, principal }) => {
    if (holdsExplicitRoleFor(principal, meta, 'read')) return undefined;
    return {
      or: [
        { field: { field: 'allocated_to' }, op: '=', value: principal.user },
        { field: { field: 'assigned_by' }, op: '=', value: principal.user },
      ],
    };
  });
}
