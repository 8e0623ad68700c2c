import { DocumentRepository } from '../documents/document-repository.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import { MandatoryError, PermissionError, ValidationError } from '../errors/index.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { permissionContext } from '../documents/unit-permissions.js';

function isSet(value: unknown): boolean {
  return Number(value) === 1;
}

/**
 * Refuses unless the principal holds `share` on the shared document (reference DocShare
 * `check_share_permission`): through a role, or through a share that gives share itself.
 */
async function checkSharePermission(ctx: DocContext, doctype: string, name: string): Promise<void> {
  const meta = ctx.metas.get(doctype);
  if (meta.isSingle || meta.isChild) {
    throw new ValidationError(`${doctype} is a ${meta.isSingle ? 'single' : 'child table'} DocType: its documents cannot be shared`);
  }
  const doc = await new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d)).load(ctx.q, meta, name);
  // Link validation has made sure a new share names a document; a share of a deleted one protects nothing.
  if (!doc || (await mayUseDocument(permissionContext(ctx), meta, 'share', doc))) return;
  throw new PermissionError(`No permission to share ${doctype} ${name}`, {
    doctype,
    messages: [{ message: 'You need to have "Share" permission', title: 'Not permitted' }],
  });
}

/**
 * DocShare's own behaviour: a share names a user (or everyone), needs `share` permission on the
 * document to be made or removed, and carries its rights downwards (share, write or submit imply
 * read; submit implies write). Deleting any document removes its shares.
 */
export function registerDocShareController(hooks: HookRegistry): void {
  hooks.on('DocShare', 'validate', async ({ doc, ctx }, next) => {
    if (isSet(doc.everyone)) doc.user = null;
    else if (typeof doc.user !== 'string' || doc.user === '') {
      throw new MandatoryError('User is mandatory for Share', { doctype: 'DocShare' });
    }
    const doctype = String(doc.share_doctype);
    const name = String(doc.share_name);
    await checkSharePermission(ctx, doctype, name);
    if (isSet(doc.submit) && !ctx.metas.get(doctype).isSubmittable) {
      throw new ValidationError(`Cannot share ${name} with submit permission as the doctype ${doctype} is not submittable`);
    }
    if (isSet(doc.share) || isSet(doc.write) || isSet(doc.submit)) doc.read = 1;
    if (isSet(doc.submit)) doc.write = 1;
    await next();
  });

  hooks.on('DocShare', 'on_trash', async ({ doc, ctx }, next) => {
    const doctype = String(doc.share_doctype);
    // A share of a DocType that no longer exists protects nothing.
    if (ctx.metas.has(doctype)) await checkSharePermission(ctx, doctype, String(doc.share_name));
    await next();
  });

  hooks.on('*', 'after_delete', async ({ doc, ctx }, next) => {
    if (doc.doctype !== 'DocShare') {
      await ctx.q.run(
        ctx.dialect.builder.deleteFrom('tabDocShare').where('share_doctype', '=', String(doc.doctype)).where('share_name', '=', String(doc.name)).compile(),
      );
    }
    await next();
  });
}
