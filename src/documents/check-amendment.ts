import { LinkValidationError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { DocContext } from './doc-context.js';
import type { DocumentGuard } from './document-guard.js';

/**
 * Checks a new document that amends another (`amended_from` set on a submittable DocType,
 * docs/architecture.md "Submittable DocTypes"): the source must exist and be cancelled ("... cannot be amended because it
 * is not cancelled", 417), and unless `checkPermission` is false the principal needs `amend` on it.
 */
export async function checkAmendment(ctx: DocContext, service: DocumentGuard, meta: Meta, doc: Doc, checkPermission: boolean): Promise<void> {
  const from = doc.amended_from;
  if (!meta.isSubmittable || typeof from !== 'string' || from === '') return;
  const source = await service.repo(ctx).load(ctx.q, meta, from);
  if (!source) {
    throw new LinkValidationError(`Could not find ${meta.label('amended_from')}: ${from}`, { doctype: meta.name });
  }
  if (source.docstatus !== 2) {
    throw new ValidationError(`${meta.name} ${from} cannot be amended because it is not cancelled`, { doctype: meta.name });
  }
  if (checkPermission) await service.authorize(ctx, meta, 'amend', source);
}
