import type { Doc, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { MaybePromise } from '../async/maybe-promise.js';
import type { PermissionContext } from './permission-context.js';
import { hasPermission, roleGrant } from './role-permissions.js';
import { isShareable, shareAllows } from './shares.js';
import { satisfiesUserPermissions } from './user-permissions.js';

/**
 * True when the principal may use `right` on some documents of `meta`: a role grants it (if_owner
 * included) or, for rights a share can give, some document of the DocType is shared with them. This
 * is the DocType-level check that runs before a document is loaded, so that a DocType the caller
 * cannot reach at all answers 403 whether or not the document exists.
 */
export function mayUseDocType(pc: PermissionContext, meta: Meta, right: PermissionType): MaybePromise<boolean> {
  if (pc.principal.isAdministrator) return true;
  if (roleGrant(pc.principal, meta, right) !== 'none') return true;
  if (!isShareable(right)) return false;
  return pc.shares(meta.name).then((shares) => shares.some((s) => shareAllows(s, right)));
}

/**
 * True when the principal may use `right` on `doc` (docs/architecture.md "Permissions", `has_permission` with a
 * document): the Administrator always; otherwise the role permissions (if_owner compared with the
 * document's owner), then every `has_permission` hook and the User Permissions must agree; and when
 * any of those refuses, a share of this document that gives `right` still allows it, unless
 * `viaShares` is false (renaming: a share never renames, docs/security.md).
 */
export function mayUseDocument(
  pc: PermissionContext,
  meta: Meta,
  right: PermissionType,
  doc: Doc,
  options: { readonly viaShares?: boolean } = {},
): MaybePromise<boolean> {
  if (pc.principal.isAdministrator) return true;
  // Written out rather than with anyOf/allOf: a GET asks this once per document, and the answer
  // is nearly always known at once, so no closure is made unless a step has to wait.
  const viaShares = options.viaShares !== false;
  const roles = rolesAllow(pc, meta, right, doc);
  if (roles === true) return true;
  if (roles === false) return viaShares && isSharedFor(pc, meta, right, doc);
  return roles.then((ok) => ok || (viaShares && isSharedFor(pc, meta, right, doc)));
}

function rolesAllow(pc: PermissionContext, meta: Meta, right: PermissionType, doc: Doc): MaybePromise<boolean> {
  if (!hasPermission(pc.principal, meta, right, doc)) return false;
  const hooks = pc.hooks.allows({ doc, meta, right, principal: pc.principal, ctx: pc.ctx });
  if (hooks === false) return false;
  if (hooks === true) return userPermissionsAllow(pc, meta, doc);
  return hooks.then((ok) => ok && userPermissionsAllow(pc, meta, doc));
}

function userPermissionsAllow(pc: PermissionContext, meta: Meta, doc: Doc): MaybePromise<boolean> {
  const rules = pc.userPermissions();
  if (rules instanceof Promise) return rules.then((known) => satisfiesUserPermissions(meta, doc, known, pc.metaOf));
  return satisfiesUserPermissions(meta, doc, rules, pc.metaOf);
}

async function isSharedFor(pc: PermissionContext, meta: Meta, right: PermissionType, doc: Doc): Promise<boolean> {
  const name = doc.name;
  // A document being created has no shares yet.
  if (typeof name !== 'string' || name === '' || !isShareable(right)) return false;
  return (await pc.shares(meta.name, name)).some((s) => shareAllows(s, right));
}
