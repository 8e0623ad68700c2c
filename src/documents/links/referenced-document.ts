import type { Doc } from '../../meta/doctype.js';
import type { Meta } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';
import { DocumentRepository } from '../document-repository.js';
import { loadSingle } from '../singles/single-document.js';

/**
 * The stored document that a (doctype, name) pair kept in another document names (a Version's
 * ref_doctype and docname, a File's attachment), without permission checks. Undefined when the
 * pair is not two strings, names an unknown or child DocType, or a document that is gone; a
 * Single's one document is found under its DocType's name.
 */
export async function loadReferencedDocument(ctx: DocContext, doctype: unknown, name: unknown): Promise<{ meta: Meta; doc: Doc } | undefined> {
  if (typeof doctype !== 'string' || typeof name !== 'string' || !ctx.metas.has(doctype)) return undefined;
  const meta = ctx.metas.get(doctype);
  if (meta.isChild) return undefined;
  if (meta.isSingle) return name === meta.name ? { meta, doc: await loadSingle(ctx, meta) } : undefined;
  const doc = await new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d)).load(ctx.q, meta, name);
  return doc ? { meta, doc } : undefined;
}
