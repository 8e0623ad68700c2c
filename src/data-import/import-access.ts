import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { DoesNotExistError, PermissionError, ValidationError } from '../errors/index.js';
import { mayReadFile } from '../files/file-access.js';
import { filesWithUrl } from '../files/file-rows.js';
import type { Meta } from '../meta/meta.js';
import { UPDATE_EXISTING } from './apply-payload.js';
import { DATA_IMPORT } from './doctypes/index.js';

/** A Data Import's settings, as the preview and the job read them. */
export interface ImportSettings {
  readonly name: string;
  readonly referenceDoctype: string;
  readonly importType: string;
  readonly importFile: string;
  readonly status: string;
  readonly submitAfterImport: boolean;
  readonly muteEmails: boolean;
  readonly columnToField: Readonly<Record<string, unknown>>;
  readonly owner: string;
}

function columnMap(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text.trim() === '') return {};
  try {
    const parsed = JSON.parse(text) as { column_to_field_map?: unknown };
    const map = parsed?.column_to_field_map;
    return map && typeof map === 'object' && !Array.isArray(map) ? (map as Record<string, unknown>) : {};
  } catch {
    throw new ValidationError('Template Options must be JSON');
  }
}

/**
 * Loads a Data Import the principal may read (404 or 403 as a document GET answers), and with
 * `write` also checks write permission on it (starting and stopping change it).
 */
export async function loadImport(ctx: DocContext, documents: DocumentService, name: string, right: 'read' | 'write'): Promise<ImportSettings> {
  const doc = await documents.get(ctx, DATA_IMPORT, name);
  if (right === 'write') await documents.authorize(ctx, ctx.metas.get(DATA_IMPORT), 'write', doc);
  return {
    name: String(doc.name),
    referenceDoctype: String(doc.reference_doctype ?? ''),
    importType: String(doc.import_type ?? ''),
    importFile: typeof doc.import_file === 'string' ? doc.import_file : '',
    status: String(doc.status ?? 'Pending'),
    submitAfterImport: Number(doc.submit_after_import) === 1,
    muteEmails: Number(doc.mute_emails) === 1,
    columnToField: columnMap(doc.template_options),
    owner: String(doc.owner ?? ''),
  };
}

/**
 * The DocType an import writes, after checking the principal may: create for inserts, write for
 * updates (docs/import-export.md "Import"). Child and Single DocTypes are not importable.
 */
export async function authorizeTarget(ctx: DocContext, documents: DocumentService, settings: ImportSettings): Promise<Meta> {
  const doctype = settings.referenceDoctype;
  if (!ctx.metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype} not found`, { doctype });
  const meta = ctx.metas.get(doctype);
  if (meta.isChild || meta.isSingle) throw new ValidationError(`${doctype} cannot be imported: import its parent DocType with the child table's columns`);
  await documents.authorize(ctx, meta, settings.importType === UPDATE_EXISTING ? 'write' : 'create');
  return meta;
}

/**
 * Checks that the principal may read the import file: some File with that URL it may read (its
 * own upload, or one attached to a document it reads). Without this, naming another user's
 * private file would import (and so reveal) its contents.
 */
export async function authorizeFile(ctx: DocContext, fileUrl: string): Promise<void> {
  if (fileUrl === '') throw new ValidationError('Attach a file to import first (Import File)');
  // A file that does not exist answers as one the caller may not read, so names never leak (docs/security.md "Files").
  for (const file of await filesWithUrl(ctx, fileUrl)) if (await mayReadFile(ctx, file)) return;
  throw new PermissionError(`Not permitted to read ${fileUrl}`, { doctype: 'File' });
}
