import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { listDocuments } from '../../documents/list-documents.js';
import { presentDoc } from '../../documents/present-document.js';
import { PERMISSION_TYPES, type Doc } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/**
 * Rows of another DocType about a document, as the caller may see them: none when the caller may
 * not read that DocType at all (a form is still shown to them), else through the list rules.
 */
async function related(ctx: DocContext, documents: DocumentService, doctype: string, fields: string[], filters: Record<string, unknown>, orderBy: string): Promise<unknown[]> {
  if (!ctx.metas.has(doctype)) return [];
  if (!(await documents.can(ctx, ctx.metas.get(doctype), 'read'))) return [];
  return (await listDocuments(ctx, doctype, { fields, filters, order_by: orderBy, limit_page_length: 0 }, 'v1')).rows;
}

/** The rights the caller holds on the document, as the reference's `permissions` map of 0 and 1. */
async function rights(ctx: DocContext, documents: DocumentService, doctype: string, doc: Doc): Promise<Record<string, 0 | 1>> {
  const meta = ctx.metas.get(doctype);
  const out: Record<string, 0 | 1> = {};
  for (const right of PERMISSION_TYPES) out[right] = (await documents.can(ctx, meta, right, doc)) ? 1 : 0;
  return out;
}

/**
 * What a form shows beside a document (reference `docinfo`): its attachments, comments, change
 * history, open assignments, shares and the caller's rights on it, each limited to what the caller
 * may read.
 */
export async function loadDocinfo(ctx: DocContext, documents: DocumentService, doctype: string, doc: Doc): Promise<Record<string, unknown>> {
  const name = String(doc.name);
  return {
    doctype,
    name,
    attachments: await related(ctx, documents, 'File', ['name', 'file_name', 'file_url', 'is_private'], { attached_to_doctype: doctype, attached_to_name: name }, 'creation asc'),
    comments: await related(
      ctx,
      documents,
      'Comment',
      ['name', 'creation', 'content', 'owner', 'comment_email', 'comment_by', 'comment_type'],
      { reference_doctype: doctype, reference_name: name, comment_type: 'Comment' },
      'creation asc',
    ),
    versions: await related(ctx, documents, 'Version', ['name', 'owner', 'creation', 'data'], { ref_doctype: doctype, docname: name }, 'creation desc'),
    assignments: await related(
      ctx,
      documents,
      'ToDo',
      ['name', 'allocated_to as owner', 'description'],
      { reference_type: doctype, reference_name: name, status: ['not in', ['Cancelled', 'Closed']] },
      'creation asc',
    ),
    shared: await related(ctx, documents, 'DocShare', ['name', 'user', 'read', 'write', 'share', 'submit', 'everyone'], { share_doctype: doctype, share_name: name }, 'creation asc'),
    permissions: await rights(ctx, documents, doctype, doc),
  };
}

/**
 * `fw.desk.form.load.getdoc` (a form): answers `{"docs": [doc], "docinfo": {...}}` with no
 * `message`, as the reference does. A document the caller may not read is 403, a missing one 404
 * (403 when the caller may not read the DocType, so existence never leaks).
 */
async function getdoc({ ctx, services, args, http }: MethodCall): Promise<undefined> {
  const doctype = String(args.doctype);
  const name = args.name === undefined || args.name === null || args.name === '' ? doctype : String(args.name);
  const doc = await services.documents.get(ctx, doctype, name);
  http.extraBody.docs = [presentDoc(doc, 'v1')];
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
