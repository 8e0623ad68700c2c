import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { Meta } from '../meta/meta.js';
import { VIEW_LOG } from './doctypes/index.js';
import { systemContext } from './document-columns.js';

/*
 * Views (docs/collaboration.md "Views"): a form opened by `getdoc` leaves a View Log when its
 * DocType has Track Views, as the reference's `add_viewed`; the form's docinfo lists them.
 */

/** How many views docinfo answers, newest first: enough for a form's "viewed by" line. */
export const DOCINFO_VIEWS = 100;

/** Records that the caller opened the document, in the form load's transaction; nothing without Track Views. */
export async function recordView(ctx: DocContext, documents: DocumentService, meta: Meta, name: string): Promise<void> {
  if (meta.def.track_views !== 1 || meta.isChild || ctx.principal.user === 'Guest') return;
  const system = await systemContext(ctx);
  await documents.insert(system, VIEW_LOG, { viewed_by: ctx.principal.user, reference_doctype: meta.name, reference_name: name }, { ignorePermissions: true });
}

/**
 * The document's views for docinfo `views`: `{name, creation, owner}` newest first, as the
 * reference answers them. They belong to the document: whoever may read it sees who opened it.
 */
export async function docinfoViews(ctx: DocContext, meta: Meta, name: string): Promise<{ name: string; creation: unknown; owner: string }[]> {
  if (meta.def.track_views !== 1 || !ctx.metas.has(VIEW_LOG)) return [];
  const query = ctx.dialect.builder
    .selectFrom(`tab${VIEW_LOG}`)
    .select(['name', 'creation', 'viewed_by as owner'])
    .where('reference_doctype', '=', meta.name)
    .where('reference_name', '=', name)
    .orderBy('creation', 'desc')
    .orderBy('name', 'desc')
    .limit(DOCINFO_VIEWS);
  return ctx.q.all(query.compile());
}
