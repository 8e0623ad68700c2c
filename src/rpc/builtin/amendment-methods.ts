import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/**
 * `fw.client.is_document_amended(doctype, docname)`: the name of a document that amends `docname`
 * (its `amended_from`), or false. As in the reference, a caller who may not read the DocType, or a
 * DocType without amendments, gets false; the amendment is looked up through the list rules, so one
 * the caller may not read is not named (docs/api.md "Form saves").
 */
async function isDocumentAmended({ ctx, services, args }: MethodCall): Promise<string | false> {
  const meta = ctx.metas.get(String(args.doctype));
  if (!meta.hasColumn('amended_from') || !(await services.documents.can(ctx, meta, 'read'))) return false;
  const { rows } = await listDocuments(
    ctx,
    await listQueryAfterAccess(ctx, meta.name, {
      fields: ['name'],
      filters: { amended_from: String(args.docname) },
      limit_page_length: 1,
      order_by: 'creation asc',
    }),
  );
  const first = rows[0] as Record<string, unknown> | undefined;
  return first ? String(first.name) : false;
}

export function registerAmendmentMethods(methods: MethodRegistry): void {
  methods.register('fw.client.is_document_amended', isDocumentAmended, {
    description: 'The name of the document that amends this one, or false.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'docname', type: 'string', required: true },
    ],
  });
}
