import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import { loadReferencedDocument } from '../documents/links/referenced-document.js';
import type { Doc } from '../meta/doctype.js';
import { holdsExplicitRoleFor } from '../permissions/automatic-roles.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { listRestriction } from '../permissions/list-restriction.js';
import { permissionContext } from '../documents/unit-permissions.js';
import { roleGrant } from '../permissions/role-permissions.js';
import type { Condition } from '../query/list-query.js';

/** The DocType of timeline comments. */
export const COMMENT_DOCTYPE = 'Comment';

/** True when the principal may read the document a Comment is about (it must still exist). */
async function mayReadReference(ctx: DocContext, comment: Doc): Promise<boolean> {
  const source = await loadReferencedDocument(ctx, comment.reference_doctype, comment.reference_name);
  if (source === undefined) return false;
  return mayUseDocument(permissionContext(ctx), source.meta, 'read', source.doc);
}

/**
 * The DocTypes whose every document the principal may read (role read on all documents, nothing
 * narrowing the rows): a list condition cannot follow per-document rules of another table, so
 * other users see in lists only the Comments on these.
 */
async function fullyReadableDocTypes(ctx: DocContext): Promise<string[]> {
  const pc = permissionContext(ctx);
  const out: string[] = [];
  for (const name of ctx.metas.names()) {
    const meta = ctx.metas.get(name);
    // Comments on Comments are not a thing, and asking would recurse into this very condition.
    if (name === COMMENT_DOCTYPE || meta.isChild || roleGrant(ctx.principal, meta, 'read') !== 'all') continue;
    if ((await listRestriction(pc, meta)) === undefined) out.push(name);
  }
  return out;
}

/**
 * Comments (docs/api.md "Comments"): a Comment is about one document (`reference_doctype`,
 * `reference_name`). Besides the System Manager, a user may read, create, and (as its owner)
 * change or delete a Comment only while they may read the document it is about. A new Comment
 * records who wrote it and the owner of the document.
 */
export function registerCommentController(hooks: HookRegistry): void {
  hooks.on(COMMENT_DOCTYPE, 'before_insert', async ({ doc, ctx }, next) => {
    doc.comment_email ??= ctx.principal.user;
    doc.comment_by ??= ctx.principal.user;
    const source = await loadReferencedDocument(ctx, doc.reference_doctype, doc.reference_name);
    if (source) doc.reference_owner = source.doc.owner ?? null;
    await next();
  });

  hooks.permissions.onHasPermission(COMMENT_DOCTYPE, async ({ doc, meta, right, principal, ctx }) => {
    if (holdsExplicitRoleFor(principal, meta, right === 'select' ? 'read' : right)) return true;
    return mayReadReference(ctx, doc);
  });

  hooks.permissions.onQueryConditions(COMMENT_DOCTYPE, async ({ meta, principal, ctx }): Promise<Condition | undefined> => {
    if (holdsExplicitRoleFor(principal, meta, 'read')) return undefined;
    return { field: { field: 'reference_doctype' }, op: 'in', value: await fullyReadableDocTypes(ctx) };
  });
}
