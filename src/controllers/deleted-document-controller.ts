import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { VERSION_DOCTYPE } from './version-controller.js';

/** The DocType that keeps deleted documents. */
export const DELETED_DOCUMENT_DOCTYPE = 'Deleted Document';

/** DocTypes whose deletions are not archived: the archive itself and the change history. */
const NOT_ARCHIVED: ReadonlySet<string> = new Set([DELETED_DOCUMENT_DOCTYPE, VERSION_DOCTYPE]);

/**
 * The Deleted Document archive (docs/architecture.md "Version history and Deleted Document"):
 * deleting a document stores it whole, child rows included, as JSON, once every other `on_trash`
 * hook has agreed to the deletion. DocType deletions are archived too (a DocType can only be deleted
 * empty, so restoring one brings back its definition and an empty table). Password values are never
 * in the document (only their mask), so a restored document has no secrets.
 */
export function registerDeletedDocumentController(hooks: HookRegistry, documents: DocumentService): void {
  hooks.on('*', 'on_trash', async ({ doc, ctx }, next) => {
    // Taken before later hooks run, so the archive holds the document exactly as it was stored.
    const data = JSON.stringify(doc, null, 1);
    await next();
    const doctype = doc.doctype;
    if (typeof doctype !== 'string' || NOT_ARCHIVED.has(doctype) || !ctx.metas.has(doctype)) return;
    const meta = ctx.metas.get(doctype);
    if (meta.isChild || meta.isSingle) return;
    await documents.insert(
      ctx,
      DELETED_DOCUMENT_DOCTYPE,
      { deleted_name: String(doc.name), deleted_doctype: doctype, data, restored: 0 },
      { ignorePermissions: true },
    );
  });
}
