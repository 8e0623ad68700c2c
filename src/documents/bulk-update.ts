import { FrappeTypeError, FwError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import { updateChildRow } from './child-row-operations.js';
import type { DocContext } from './doc-context.js';
import type { DocumentService } from './document-service.js';
import { withSavepoint } from './savepoint.js';

/** One item that could not be saved: the item as sent (without `flags`) and `<exc_type>: <message>`. */
export interface BulkFailure {
  readonly doc: unknown;
  readonly exc: string;
}

/** The answer of a bulk update (reference `frappe.client.bulk_update`). */
export interface BulkUpdateResult {
  readonly failed_docs: BulkFailure[];
}

/** Applies one item `{doctype, docname, ...fields}`: a merge and save, with the usual checks. */
async function applyItem(ctx: DocContext, service: DocumentService, item: unknown): Promise<void> {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw new FrappeTypeError('Each item must be an object with doctype, docname and the fields to set');
  }
  const { doctype, docname, ...fields } = item as Doc;
  if (typeof doctype !== 'string' || doctype === '') throw new FrappeTypeError('An item must carry doctype');
  if ((typeof docname !== 'string' || docname === '') && typeof docname !== 'number') {
    throw new FrappeTypeError('An item must carry docname');
  }
  if (ctx.metas.get(doctype).isChild) await updateChildRow(ctx, service, doctype, String(docname), fields);
  else await service.update(ctx, doctype, String(docname), fields);
}

/**
 * Saves each item in its own savepoint, so a refused item leaves no trace and the others are
 * stored; refusals (any 4xx error) are reported in `failed_docs`. Anything else (a lost
 * connection, a serialisation failure to retry) fails the whole call, as it must.
 */
export async function bulkUpdate(ctx: DocContext, service: DocumentService, items: readonly unknown[]): Promise<BulkUpdateResult> {
  const failed: BulkFailure[] = [];
  for (const raw of items) {
    const item = withoutFlags(raw);
    try {
      await withSavepoint(ctx.q, () => applyItem(ctx, service, item), ctx.unit);
    } catch (err) {
      if (!(err instanceof FwError) || err.status >= 500) throw err;
      failed.push({ doc: item, exc: `${err.excType}: ${err.message}` });
    }
  }
  return { failed_docs: failed };
}

/** The reference drops `flags` from each item before using it. */
function withoutFlags(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const { flags: _flags, ...rest } = item as Doc;
  return rest;
}
