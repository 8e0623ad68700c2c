import { loadPrincipal, withUserPermissions, type Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { loadUserPermissions } from '../documents/permission-rows.js';
import { PermissionError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/** A collaboration column (see COLLABORATION_COLUMNS in meta/meta.ts). */
export type CollaborationColumn = '_user_tags' | '_assign' | '_liked_by' | '_comments';

/**
 * The document the caller acts on, which they must be able to read (403, or 404 when there is
 * none), and whose DocType keeps collaboration columns (417 for Single and child DocTypes).
 */
export async function readableTarget(ctx: DocContext, documents: DocumentService, doctype: string, name: string): Promise<{ meta: Meta; doc: Doc }> {
  const doc = await documents.get(ctx, doctype, name);
  const meta = ctx.metas.get(doctype);
  if (meta.collaborationColumns.length === 0)
    throw new ValidationError(`${meta.name} keeps no assignments, tags or likes (a Single or child DocType)`, { doctype: meta.name });
  return { meta, doc };
}

/** The stored value of `column` of the document (callers that change it lock the row first: writeColumn). */
export async function readColumn(ctx: DocContext, meta: Meta, name: string, column: CollaborationColumn): Promise<string | null> {
  const query = ctx.dialect.builder.selectFrom(meta.tableName).select(column).where('name', '=', name);
  const rows = await ctx.q.all<Record<string, string | null>>(query.compile());
  return rows[0]?.[column] ?? null;
}

/** A JSON list column (`_assign`, `_liked_by`) as its strings; anything else reads as empty. */
export function parseUserList(value: string | null): string[] {
  if (!value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Changes `column` of the document to what `change` makes of its stored value, with the row locked
 * so concurrent changes take turns, without touching `modified` (as the reference's set_value with
 * update_modified off). A real change then runs the DocType's `on_change` hooks with the column in
 * the document, so realtime `doc_update`, webhooks on "on_change" and apps hear of it as of any
 * change once the unit commits (docs/collaboration.md "Events"). Answers the new value.
 */
export async function updateColumn(
  ctx: DocContext,
  documents: DocumentService,
  meta: Meta,
  name: string,
  column: CollaborationColumn,
  change: (current: string | null) => string | null,
): Promise<string | null> {
  const stored = await documents.repo(ctx).load(ctx.q, meta, name, { forUpdate: true });
  if (!stored) return null;
  const previous = await readColumn(ctx, meta, name, column);
  const value = change(previous);
  if (previous === value) return value;
  await ctx.q.run(
    ctx.dialect.builder
      .updateTable(meta.tableName)
      .set({ [column]: value })
      .where('name', '=', name)
      .compile(),
  );
  await ctx.hooks.run(meta.name, 'on_change', { doc: { ...stored, [column]: value }, before: { ...stored, [column]: previous }, ctx });
  return value;
}

/** The principal of another user with their User Permissions, or undefined when the user is missing or disabled. */
export async function principalOf(ctx: DocContext, user: string): Promise<Principal | undefined> {
  const principal = await loadPrincipal(ctx.q, ctx.dialect, user);
  if (!principal) return undefined;
  return withUserPermissions(principal, await loadUserPermissions(ctx.q, ctx.dialect, principal.user));
}

/** True when `user` may read `doc` of `meta` (their roles, User Permissions, shares and hooks). */
export async function userMayRead(ctx: DocContext, documents: DocumentService, user: string, meta: Meta, doc: Doc): Promise<boolean> {
  const principal = await principalOf(ctx, user);
  if (!principal) return false;
  return documents.can({ ...ctx, principal }, meta, 'read', doc);
}

/** Refuses unless the caller is `user` or a System Manager (acting for someone else). */
export function assertActsFor(ctx: DocContext, user: string): void {
  const { principal } = ctx;
  if (principal.user === user || principal.isAdministrator || principal.roles.has('System Manager')) return;
  throw new PermissionError('Not permitted', { messages: [{ message: `You may not act for ${user}`, title: 'Not permitted' }] });
}

/**
 * A context acting as Administrator, for the reference's `ignore_permissions` writes of internal
 * records (a Tag Link, a Document Follow) that the caller was already allowed to make.
 */
export async function systemContext(ctx: DocContext): Promise<DocContext> {
  const principal = await loadPrincipal(ctx.q, ctx.dialect, 'Administrator');
  if (!principal) throw new Error('the Administrator user is missing');
  return { ...ctx, principal };
}
