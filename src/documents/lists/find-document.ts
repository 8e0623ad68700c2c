import { listQueryAfterAccess } from './list-access.js';
import { DoesNotExistError, FrappeTypeError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import { getChildRow } from '../child-row-operations.js';
import type { DocContext } from '../doc-context.js';
import type { DocumentService } from '../document-service.js';
import { listDocuments } from './list-documents.js';

/**
 * The first document matching `filters` (a dict or list; `{}` matches any) in the DocType's default
 * order, among those the principal may read; 404 when none matches. A child DocType needs `parent`.
 */
export async function findDocument(ctx: DocContext, service: DocumentService, doctype: string, filters: unknown, parent?: string): Promise<Doc> {
  const meta = ctx.metas.get(doctype);
  const { rows } = await listDocuments(ctx, await listQueryAfterAccess(ctx, doctype, { fields: ['name'], filters, limit_page_length: 1, parent }));
  const first = rows[0] as { name?: unknown } | undefined;
  if (first?.name === undefined || first.name === null) {
    throw new DoesNotExistError(`${meta.name} matching ${JSON.stringify(filters)?.slice(0, 200)} not found`, { doctype: meta.name });
  }
  const name = String(first.name);
  return meta.isChild ? getChildRow(ctx, service, doctype, name, parent) : service.get(ctx, doctype, name);
}

/** How a client names the document it wants: by name, or by filters (the first match). */
export type DocumentTarget = { readonly name: string } | { readonly filters: unknown };

/**
 * One document by name, or the first one matching filters (`fw.client.get`). A Single's one
 * document needs neither (another name is 404, filters are ignored); a child row needs `parent`.
 */
export async function getDocumentBy(
  ctx: DocContext,
  service: DocumentService,
  doctype: string,
  target: DocumentTarget | undefined,
  parent?: string,
): Promise<Doc> {
  const meta = ctx.metas.get(doctype);
  if (meta.isSingle) return service.get(ctx, doctype, target && 'name' in target ? target.name : meta.name);
  if (target === undefined) throw new FrappeTypeError('Pass name or filters');
  if ('filters' in target) return findDocument(ctx, service, doctype, target.filters, parent);
  return meta.isChild ? getChildRow(ctx, service, doctype, target.name, parent) : service.get(ctx, doctype, target.name);
}
