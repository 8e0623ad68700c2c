import type { DocContext } from '../documents/doc-context.js';
import { DocumentRepository } from '../documents/document-repository.js';
import { DoesNotExistError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { mayUseDocType, mayUseDocument } from '../permissions/document-access.js';
import { permissionContext } from '../documents/unit-permissions.js';
import { permissionDenied } from '../permissions/permission-denied.js';
import { FILE_DOCTYPE } from './file-rows.js';

/** The document a File is attached to, or undefined when it names none or one that is gone. */
async function attachedDocument(ctx: DocContext, file: Doc): Promise<{ doc: Doc; doctype: string } | undefined> {
  const doctype = file.attached_to_doctype;
  const name = file.attached_to_name;
  if (typeof doctype !== 'string' || typeof name !== 'string' || !ctx.metas.has(doctype)) return undefined;
  const meta = ctx.metas.get(doctype);
  if (meta.isChild) return undefined;
  const doc = await new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d)).load(ctx.q, meta, name);
  return doc ? { doc, doctype } : undefined;
}

/**
 * True when the principal may read this File's bytes (docs/api.md): the File's own
 * read permission (its owner, System Managers, shares) or read permission on the document it is
 * attached to. The second widens what the role permissions give, which a `has_permission` hook
 * cannot do, so it lives here rather than in a hook.
 */
export async function mayReadFile(ctx: DocContext, file: Doc): Promise<boolean> {
  if (ctx.principal.isGuest) return false;
  const pc = permissionContext(ctx);
  if (await mayUseDocument(pc, ctx.metas.get(FILE_DOCTYPE), 'read', file)) return true;
  const attached = await attachedDocument(ctx, file);
  return attached !== undefined && (await mayUseDocument(pc, ctx.metas.get(attached.doctype), 'read', attached.doc));
}

/**
 * Refuses to attach a File to a document the principal may not write: 403, or 404 when the
 * document does not exist and the principal may read the DocType (so existence never leaks).
 */
export async function checkAttachTarget(ctx: DocContext, doctype: string, name: string): Promise<void> {
  if (!ctx.metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype} not found`, { doctype });
  const meta = ctx.metas.get(doctype);
  if (meta.isChild || meta.isSingle) {
    throw new ValidationError(`Files attach to documents of a top-level DocType, not ${doctype}`);
  }
  const pc = permissionContext(ctx);
  const doc = await new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d)).load(ctx.q, meta, name);
  if (!doc) {
    if (await mayUseDocType(pc, meta, 'read')) throw new DoesNotExistError(`${doctype} ${name} not found`, { doctype });
    throw permissionDenied(ctx.principal, meta, 'read');
  }
  if (!(await mayUseDocument(pc, meta, 'write', doc))) throw permissionDenied(ctx.principal, meta, 'write', name);
}
