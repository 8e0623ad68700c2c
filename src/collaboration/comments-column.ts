import type { DocContext } from '../documents/doc-context.js';
import type { Doc } from '../meta/doctype.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { updateColumn } from './document-columns.js';

/*
 * The `_comments` column (docs/collaboration.md "Columns"): the document's latest comments as a
 * JSON list of `{comment, by, name}`, kept in step whenever a Comment about it is added, edited or
 * deleted, as the reference keeps it for list views that show comment counts.
 */

/** How many comments the column keeps, the latest, as the reference. */
export const KEPT_COMMENTS = 100;
/** Longer comments are cut to this many characters, the last three "...". */
export const COMMENT_PREVIEW = 100;

/** One entry of `_comments`. */
export interface CommentEntry {
  readonly comment: string;
  readonly by: string;
  readonly name: string;
}

/** The comment's text as the column keeps it. */
export function previewOf(content: string): string {
  return content.length > COMMENT_PREVIEW ? `${content.slice(0, COMMENT_PREVIEW - 3)}...` : content;
}

/** A stored `_comments` value as its entries; anything unreadable counts as none. */
export function parseComments(value: string | null): CommentEntry[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((c): c is CommentEntry => typeof c === 'object' && c !== null && typeof c.name === 'string') : [];
  } catch {
    return [];
  }
}

/** The document a Comment is about when that document keeps `_comments`; else undefined. */
function target(ctx: DocContext, comment: Doc): { doctype: string; name: string } | undefined {
  if ((comment.comment_type ?? 'Comment') !== 'Comment') return undefined;
  const doctype = comment.reference_doctype;
  const name = comment.reference_name;
  if (typeof doctype !== 'string' || typeof name !== 'string' || !ctx.metas.has(doctype)) return undefined;
  return ctx.metas.get(doctype).collaborationColumns.includes('_comments') ? { doctype, name } : undefined;
}

/** Puts the Comment into (or, with `remove`, takes it out of) its document's `_comments`, in the Comment's transaction. */
async function keepInStep(parts: CollaborationParts, ctx: DocContext, comment: Doc, remove: boolean): Promise<void> {
  const about = target(ctx, comment);
  if (!about) return;
  const meta = ctx.metas.get(about.doctype);
  const name = String(comment.name);
  await updateColumn(ctx, parts.documents, meta, about.name, '_comments', (current) => {
    const entries = parseComments(current);
    const next = entries.filter((c) => c.name !== name);
    if (!remove) {
      const entry = { comment: previewOf(String(comment.content ?? '')), by: String(comment.comment_email || comment.owner || ''), name };
      const at = entries.findIndex((c) => c.name === name);
      if (at >= 0) next.splice(at, 0, entry);
      else next.push(entry);
    }
    if (next.length === 0) return current === null ? null : '[]';
    return JSON.stringify(next.slice(-KEPT_COMMENTS));
  });
}

/** Keeps `_comments` in step with the Comments about each document. */
export function registerCommentsColumn(parts: CollaborationParts): void {
  for (const event of ['after_insert', 'on_update'] as const) {
    parts.hooks.on('Comment', event, async ({ doc, ctx }, next) => {
      await next();
      await keepInStep(parts, ctx, doc, false);
    });
  }
  parts.hooks.on('Comment', 'after_delete', async ({ doc, ctx }, next) => {
    await next();
    await keepInStep(parts, ctx, doc, true);
  });
}
