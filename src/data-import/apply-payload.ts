import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { namingRuleOf } from '../documents/naming/naming.js';
import { MandatoryError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/** The reference's two import types. */
export const INSERT_NEW = 'Insert New Records';
export const UPDATE_EXISTING = 'Update Existing Records';

/** What one Data Import asks of every document. */
export interface ApplyOptions {
  readonly importType: string;
  readonly submitAfterImport: boolean;
}

/**
 * Writes one document of the file through the document pipeline as the acting user, so it gets
 * exactly the permission checks, validation and hooks of a save (docs/import-export.md
 * "Import"). Insert: the file's ID is kept only where the DocType names by prompt. Update: the ID
 * names the document; a child table in the file replaces the stored one (rows carrying their ID
 * keep it). Answers the document's name.
 */
export async function applyPayload(ctx: DocContext, documents: DocumentService, meta: Meta, doc: Doc, options: ApplyOptions): Promise<string> {
  const submit = options.submitAfterImport && meta.isSubmittable;
  if (options.importType === UPDATE_EXISTING) {
    const name = typeof doc.name === 'string' ? doc.name : '';
    if (name === '') throw new MandatoryError('ID is required to update a document');
    const { name: _, ...patch } = doc;
    const saved = await documents.update(ctx, meta.name, name, submit ? { ...patch, docstatus: 1 } : patch);
    return String(saved.name);
  }
  if (options.importType !== INSERT_NEW) throw new ValidationError(`Import Type must be "${INSERT_NEW}" or "${UPDATE_EXISTING}"`);
  const data: Doc = { ...doc };
  if (namingRuleOf(meta).kind !== 'prompt') delete data.name;
  for (const table of meta.tableFields) {
    const rows = data[table.def.fieldname];
    if (Array.isArray(rows)) data[table.def.fieldname] = rows.map(({ name: _, ...row }: Doc) => row);
  }
  if (submit) data.docstatus = 1;
  const saved = await documents.insert(ctx, meta.name, data);
  return String(saved.name);
}
