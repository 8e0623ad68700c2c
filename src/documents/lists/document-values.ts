import { listQueryAfterAccess } from './list-access.js';
import type { DocContext } from '../doc-context.js';
import type { DocumentService } from '../document-service.js';
import { listDocuments } from './list-documents.js';
import { readSingleValues } from '../singles/single-values.js';

/** How `get_value` answers. */
export interface ValueOptions {
  /** true: an object of the fields; false: a scalar for one field, a list for several. */
  readonly asDict: boolean;
  /** The parent DocType, when `doctype` is a child table. */
  readonly parent?: string;
}

/**
 * Field values of the first document matching `filters` (reference `frappe.client.get_value`):
 * read permission and field names are checked as for lists. With `asDict`, `{}` when nothing
 * matches; without, undefined (so the body carries no `message`), a scalar for one field and a
 * list for several. A Single DocType answers its stored values, whatever the filters.
 */
export async function getDocumentValues(
  ctx: DocContext,
  service: DocumentService,
  doctype: string,
  fields: readonly unknown[],
  filters: unknown,
  opts: ValueOptions,
): Promise<unknown> {
  const meta = ctx.metas.get(doctype);
  const wanted = fields.length > 0 ? fields : ['name'];
  let row: unknown;
  if (meta.isSingle) {
    await service.authorize(ctx, meta, 'read');
    const values = await readSingleValues(ctx, meta, wanted.map(String));
    row = opts.asDict ? values : Object.values(values);
  } else {
    const args = { fields: wanted, filters, limit_page_length: 1, as_dict: opts.asDict, parent: opts.parent };
    row = (await listDocuments(ctx, await listQueryAfterAccess(ctx, doctype, args))).rows[0];
  }
  if (opts.asDict) return row ?? {};
  if (!Array.isArray(row)) return undefined;
  return wanted.length > 1 ? row : row[0];
}
