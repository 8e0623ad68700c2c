import type { Doc, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
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
export async function mayUseDocType(pc: PermissionContext, meta: Meta, right: PermissionType): Promise<boolean> {
  if (pc.principal.isAdministrator) return true;
  if (roleGrant(pc.principal, meta, right) !== 'none') return true;
  if (!isShareable(right)) return false;
  return (await pc.shares(meta.name)).some((s) => shareAllows(s, right));
}

/**
 * True when the principal may use `right` on `doc` (docs/architecture.md "Permissions", `has_permission` with a
 * document): the Administrator always; otherwise the role permissions (if_owner compared with the
 * document's owner), then every `has_permission` hook and the User Permissions must agree; and when
 * any of those refuses, a share of this document that gives `right` still allows it, unless
 * `viaShares` is false (renaming: a share never renames, docs/security.md).
 */
export async function mayUseDocument(
  pc: PermissionContext,
  meta: Meta,
  right: PermissionType,
  doc: Doc,
  options: { readonly viaShares?: boolean } = {},
): Promise<boolean> {
  if (pc.principal.isAdministrator) return true;
  if (await rolesAllow(pc, meta, right, doc)) return true;
  return options.viaShares !== false && isSharedFor(pc, meta, right, doc);
}

async function rolesAllow(pc: PermissionContext, meta: Meta, right: PermissionType, doc: Doc): Promise<boolean> {
  if (!hasPermission(pc.principal, meta, right, doc)) return false;
  if (!(await pc.hooks.allows({ doc, meta, right, principal: pc.principal, ctx: pc.ctx }))) return false;
  return satisfiesUserPermissions(meta, doc, await pc.userPermissions(), pc.metaOf);
}

async function isSharedFor(pc: PermissionContext, meta: Meta, right: PermissionType, doc: Doc): Promise<boolean> {
  const name = doc.name;
  // A document being created has no shares yet.
  if (typeof name !== 'string' || name === '' || !isShareable(right)) return false;
  return (await pc.shares(meta.name, name)).some((s) => shareAllows(s, right));
}
