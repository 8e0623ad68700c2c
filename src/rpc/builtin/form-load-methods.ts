import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { omitNulls } from '../../documents/omit-nulls.js';
import { PERMISSION_TYPES, type Doc } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { docinfoAssignments } from '../../collaboration/assignments.js';
import { docinfoFollows } from '../../collaboration/follows.js';
import { docinfoTags } from '../../collaboration/tags.js';
import { docinfoViews, recordView } from '../../collaboration/views.js';
import { documentCommunications } from '../../mail/document-communications.js';

/**
 * Rows of another DocType about a document, as the caller may see them: none when the caller may
 * not read that DocType at all (a form is still shown to them), else through the list rules.
 */
async function related(
  ctx: DocContext,
  documents: DocumentService,
  doctype: string,
  fields: string[],
  filters: Record<string, unknown>,
  orderBy: string,
): Promise<unknown[]> {
  if (!ctx.metas.has(doctype)) return [];
  if (!(await documents.can(ctx, ctx.metas.get(doctype), 'read'))) return [];
  return (await listDocuments(ctx, await listQueryAfterAccess(ctx, doctype, { fields, filters, order_by: orderBy, limit_page_length: 0 }))).rows;
}

/** The rights the caller holds on the document, as the reference's `permissions` map of 0 and 1. */
async function rights(ctx: DocContext, documents: DocumentService, doctype: string, doc: Doc): Promise<Record<string, 0 | 1>> {
  const meta = ctx.metas.get(doctype);
  const out: Record<string, 0 | 1> = {};
  for (const right of PERMISSION_TYPES) out[right] = (await documents.can(ctx, meta, right, doc)) ? 1 : 0;
  return out;
}

/** Users an answer mentions, as the reference's `user_info`: `{user: {fullname, image, name, email}}`. */
async function userInfo(ctx: DocContext, users: Iterable<unknown>): Promise<Record<string, Record<string, unknown>>> {
  const names = [...new Set([...users].filter((u): u is string => typeof u === 'string' && u !== ''))];
  if (names.length === 0) return {};
  const rows = await ctx.q.all<{ name: string; full_name: string | null; user_image: string | null; email: string | null }>(
    ctx.dialect.builder.selectFrom('tabUser').select(['name', 'full_name', 'user_image', 'email']).where('name', 'in', names).compile(),
  );
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of rows) out[r.name] = { fullname: r.full_name || r.name, image: r.user_image ?? null, name: r.name, email: r.email ?? null };
  return out;
}

/**
 * What a form shows beside a document (reference `docinfo`): its attachments, comments, mails,
 * change history, open assignments, shares, tags, followers, views and the caller's rights on it, the related
 * records each limited to what the caller may read; assignments, tags and followers belong to the
 * document itself, so whoever reads it sees them (docs/collaboration.md "In docinfo"). `user_info`
 * names the users all these mention.
 */
export async function loadDocinfo(ctx: DocContext, documents: DocumentService, doctype: string, doc: Doc): Promise<Record<string, unknown>> {
  const name = String(doc.name);
  const meta = ctx.metas.get(doctype);
  const collaborates = meta.collaborationColumns.length > 0;
  const comments = await related(
    ctx,
    documents,
    'Comment',
    ['name', 'creation', 'content', 'owner', 'comment_email', 'comment_by', 'comment_type'],
    { reference_doctype: doctype, reference_name: name, comment_type: 'Comment' },
    'creation asc',
  );
  const versions = await related(ctx, documents, 'Version', ['name', 'owner', 'creation', 'data'], { ref_doctype: doctype, docname: name }, 'creation desc');
  const assignments = await docinfoAssignments(ctx, doctype, name);
  const shareFields = ['name', 'user', 'read', 'write', 'share', 'submit', 'everyone'];
  const shared = await related(ctx, documents, 'DocShare', shareFields, { share_doctype: doctype, share_name: name }, 'creation asc');
  const follows = collaborates ? await docinfoFollows(ctx, doctype, name) : { followed_by: [], is_document_followed: false };
  const views = await docinfoViews(ctx, meta, name);
  const rowUsers = [comments, versions, assignments, shared, views].flatMap((rows) => (rows as Doc[]).map((r) => r.owner ?? r.user));
  const mentioned = [doc.owner, doc.modified_by, ...rowUsers, ...follows.followed_by];
  return {
    doctype,
    name,
    attachments: await related(
      ctx,
      documents,
      'File',
      ['name', 'file_name', 'file_url', 'is_private'],
      { attached_to_doctype: doctype, attached_to_name: name },
      'creation asc',
    ),
    comments,
    communications: await documentCommunications(ctx, doctype, name),
    versions,
    assignments,
    shared,
    tags: collaborates ? await docinfoTags(ctx, doctype, name) : '',
    ...follows,
    views,
    permissions: await rights(ctx, documents, doctype, doc),
    user_info: await userInfo(ctx, mentioned),
  };
}

/**
 * `fw.desk.form.load.getdoc` (a form): answers `{"docs": [doc], "docinfo": {...}}` with no
 * `message`, as the reference does, and records the view when the DocType tracks views
 * (docs/collaboration.md "Views"). A document the caller may not read is 403, a missing one 404
 * (403 when the caller may not read the DocType, so existence never leaks).
 */
async function getdoc({ ctx, services, args, http }: MethodCall): Promise<undefined> {
  const doctype = String(args.doctype);
  const name = args.name === undefined || args.name === null || args.name === '' ? doctype : String(args.name);
  const doc = await services.documents.get(ctx, doctype, name);
  const meta = ctx.metas.get(doctype);
  // A GET runs in a read-only unit: its view is recorded once the read ended, in a write of its own.
  if (ctx.writable) await recordView(ctx, services.documents, meta, String(doc.name));
  else if (meta.def.track_views === 1)
    ctx.unit.afterCommit(() => services.write(ctx.principal, (w) => recordView(w, services.documents, w.metas.get(doctype), String(doc.name))));
  http.extraBody.docs = [omitNulls(doc)];
  http.extraBody.docinfo = await loadDocinfo(ctx, services.documents, doctype, doc);
  return undefined;
}

/** The form loader: getdoc. */
export function registerFormLoadMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.form.load.getdoc', getdoc, {
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string' },
    ],
  });
}
