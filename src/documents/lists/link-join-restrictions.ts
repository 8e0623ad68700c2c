import type { MaybePromise } from '../../async/maybe-promise.js';
import { fixedLinkTarget } from '../../meta/field-links.js';
import type { Meta } from '../../meta/meta.js';
import { listRestriction } from '../../permissions/list-restriction.js';
import type { PermissionContext } from '../../permissions/permission-context.js';
import { roleGrant } from '../../permissions/role-permissions.js';
import { conditionParts, isLeaf, type Condition, type FieldRef, type ListQuery } from '../../query/list-query.js';

const NONE: ReadonlyMap<string, Condition> = new Map();

function viasOfCondition(c: Condition, out: Set<string>): void {
  if (isLeaf(c)) {
    if (c.field.via !== undefined) out.add(c.field.via);
  } else for (const part of conditionParts(c)) viasOfCondition(part, out);
}

/** Every `via` (Link or Table field name) the query names, nested child selections included. */
function viasOf(query: ListQuery): Set<string> {
  const out = new Set<string>();
  const add = (ref: FieldRef | undefined) => {
    if (ref?.via !== undefined) out.add(ref.via);
  };
  for (const item of query.fields) {
    if (item.kind === 'field') add(item.ref);
    else if (item.kind === 'aggregate') add(item.arg);
    else if (item.kind === 'children') for (const child of item.fields) if (child.kind === 'field') add(child.ref);
  }
  for (const c of [...query.filters, ...query.orFilters]) viasOfCondition(c, out);
  for (const term of query.orderBy ?? []) add(term.field);
  for (const ref of query.groupBy) add(ref);
  return out;
}

/**
 * The row condition of every DocType that the list request reaches through a Link join
 * (`link.field` in fields, filters, or_filters, order_by or group_by): listRestriction of that
 * DocType for the caller, so if_owner, User Permissions, permission hooks and shares apply to the
 * joined rows as to a list of them (query/link-rows.ts). DocTypes the caller holds no select on
 * are left out: their fields are refused by the field check already.
 */
export function linkJoinRestrictions(pc: PermissionContext, meta: Meta, query: ListQuery): MaybePromise<ReadonlyMap<string, Condition>> {
  if (pc.principal.isAdministrator) return NONE;
  const vias = viasOf(query);
  // Most lists join nothing: answered at once.
  if (vias.size === 0) return NONE;
  return restrictionsOfJoins(pc, meta, vias);
}

async function restrictionsOfJoins(pc: PermissionContext, meta: Meta, vias: ReturnType<typeof viasOf>): Promise<ReadonlyMap<string, Condition>> {
  const owners = [meta, ...meta.tableFields.flatMap((f) => (f.def.options ? [pc.metaOf(f.def.options)] : []))];
  const out = new Map<string, Condition>();
  const seen = new Set<string>();
  for (const via of vias) {
    for (const owner of owners) {
      const field = owner.field(via);
      const target = field === undefined ? undefined : fixedLinkTarget(field);
      if (!target || seen.has(target)) continue;
      seen.add(target);
      const targetMeta = pc.metaOf(target);
      if (roleGrant(pc.principal, targetMeta, 'select') === 'none') continue;
      const restriction = await listRestriction(pc, targetMeta);
      if (restriction !== undefined) out.set(target, restriction);
    }
  }
  return out.size === 0 ? NONE : out;
}
