import { registerAssignments } from './assignments.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { registerCommentsColumn } from './comments-column.js';
import { DOCUMENT_FOLLOW, TAG_LINK, VIEW_LOG } from './doctypes/index.js';
import { registerFollows } from './follows.js';
import { registerLikes } from './likes.js';
import { registerTags } from './tags.js';

/**
 * Wires assignments, tags, follows and likes into a site as openSite opens it (docs/collaboration.md):
 * the hooks that keep `_assign` in step and notify followers, and the methods. Their DocTypes (Tag,
 * Tag Link, Document Follow) are built-in DocTypes (collaboration/doctypes/).
 */
export function registerCollaboration(parts: CollaborationParts): void {
  registerAssignments(parts);
  registerTags(parts);
  registerFollows(parts);
  registerLikes(parts);
  registerCommentsColumn(parts);
  registerCleanup(parts);
}

/**
 * A deleted document takes its Tag Links, Document Follows and View Logs with it (they never hold a delete
 * back: documents/links/find-referrers.ts), in the delete's transaction.
 */
function registerCleanup(parts: CollaborationParts): void {
  parts.hooks.on('*', 'after_delete', async ({ doc, ctx }, next, doctype) => {
    await next();
    if (doctype === TAG_LINK || doctype === DOCUMENT_FOLLOW || doctype === VIEW_LOG || !ctx.metas.has(doctype)) return;
    const b = ctx.dialect.builder;
    const name = String(doc.name);
    if (ctx.metas.get(doctype).def.track_views === 1)
      await ctx.q.run(b.deleteFrom(`tab${VIEW_LOG}`).where('reference_doctype', '=', doctype).where('reference_name', '=', name).compile());
    if (ctx.metas.get(doctype).collaborationColumns.length === 0) return;
    await ctx.q.run(b.deleteFrom(`tab${TAG_LINK}`).where('document_type', '=', doctype).where('document_name', '=', name).compile());
    await ctx.q.run(b.deleteFrom(`tab${DOCUMENT_FOLLOW}`).where('ref_doctype', '=', doctype).where('ref_docname', '=', name).compile());
  });
}
