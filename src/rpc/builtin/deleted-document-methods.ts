import { DELETED_DOCUMENT_DOCTYPE } from '../../controllers/deleted-document-controller.js';
import { now } from '../../datetime/clock.js';
import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { DoesNotExistError, PermissionError, ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/** The reference's path of the restore method (also answering under `frappe.`). */
export const RESTORE_METHOD = 'fw.core.doctype.deleted_document.deleted_document.restore';

const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/** The reference's `frappe.only_for("System Manager")`; the Administrator holds every role. */
function requireSystemManager(ctx: DocContext): void {
  const { principal } = ctx;
  if (principal.isAdministrator || principal.roles.has('System Manager')) return;
  throw new PermissionError('Only a System Manager may restore deleted documents', {
    doctype: DELETED_DOCUMENT_DOCTYPE,
    messages: [{ message: 'You need to be in the System Manager role to restore deleted documents', title: 'Not permitted' }],
  });
}

/** The archived document: the JSON object the archive holds, or a 417 when it holds something else. */
function archivedDocument(archive: Doc): Doc {
  let data: unknown;
  try {
    data = JSON.parse(String(archive.data ?? ''));
  } catch {
    data = undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ValidationError(`Deleted Document ${String(archive.name)} holds no document to restore`);
  }
  return data as Doc;
}

/**
 * The stamps the document had before it was deleted, put back as the reference does, so that the
 * restored document keeps its owner and history; values of the wrong shape are left as inserted.
 */
function originalStamps(data: Doc): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['owner', 'modified_by']) {
    const v = data[key];
    if (typeof v === 'string' && v !== '') out[key] = v;
  }
  for (const key of ['creation', 'modified']) {
    const v = data[key];
    if (typeof v === 'string' && STORED_TIMESTAMP.test(v)) out[key] = v;
  }
  return out;
}

/**
 * Restores a Deleted Document (reference `deleted_document.restore`): System Manager only; the
 * caller needs create on the DocType and read on the document; the document is inserted again under
 * its original name with its child rows, through the whole insert pipeline (validation included: a
 * Link to a document deleted since fails with 417), as a draft, with its original owner and
 * timestamps. A name taken meanwhile is 409; an archive already restored is 417. Marks the archive
 * `restored` with `new_name` and returns the restored name.
 */
export async function restoreDeletedDocument(ctx: DocContext, documents: DocumentService, name: string): Promise<string> {
  requireSystemManager(ctx);
  const archiveMeta = ctx.metas.get(DELETED_DOCUMENT_DOCTYPE);
  await documents.authorize(ctx, archiveMeta, 'read');
  const repo = documents.repo(ctx);
  // Locked, so two restores of one archive take turns and the second sees it restored.
  const archive = await repo.load(ctx.q, archiveMeta, name, { forUpdate: true });
  if (!archive) {
    throw new DoesNotExistError(`${DELETED_DOCUMENT_DOCTYPE} ${name} not found`, { doctype: DELETED_DOCUMENT_DOCTYPE });
  }
  await documents.authorize(ctx, archiveMeta, 'read', archive);
  if (Number(archive.restored) === 1) {
    throw new ValidationError(`Document ${name} Already Restored`, {
      doctype: DELETED_DOCUMENT_DOCTYPE,
      messages: [{ message: `Document ${name} Already Restored`, title: 'Message' }],
    });
  }

  const data = archivedDocument(archive);
  const doctype = typeof data.doctype === 'string' ? data.doctype : String(archive.deleted_doctype);
  if (!ctx.metas.has(doctype)) {
    throw new ValidationError(`Cannot restore ${String(archive.deleted_name)}: DocType ${doctype} no longer exists`);
  }
  const meta = ctx.metas.get(doctype);
  await documents.authorize(ctx, meta, 'create');
  await documents.authorize(ctx, meta, 'read', data);
  const originalName = typeof data.name === 'string' && data.name !== '' ? data.name : String(archive.deleted_name);
  // A cancelled document comes back as a draft, as in the reference.
  const restored = await documents.insert(ctx, doctype, { ...data, name: originalName, docstatus: 0 }, { keepClientName: true });
  const restoredName = String(restored.name);

  const b = ctx.dialect.builder;
  const stamps = originalStamps(data);
  if (Object.keys(stamps).length > 0) {
    await ctx.q.run(b.updateTable(meta.tableName).set(stamps).where('name', '=', restoredName).compile());
  }
  const stamp = now(ctx.settings.timeZone);
  const previous = String(archive.modified ?? '');
  await ctx.q.run(
    b
      .updateTable(archiveMeta.tableName)
      .set({
        restored: 1,
        new_name: restoredName,
        modified: stamp > previous ? stamp : previous,
        modified_by: ctx.principal.user,
      })
      .where('name', '=', name)
      .compile(),
  );
  return restoredName;
}

/**
 * Restoring deleted documents: the module method `restore {name}` and the same as the whitelisted
 * document method `restore` of Deleted Document (run_doc_method); POST only.
 */
export function registerDeletedDocumentMethods(methods: MethodRegistry): void {
  const restore = ({ ctx, services, args }: MethodCall) => restoreDeletedDocument(ctx, services.documents, String(args.name));
  methods.register(RESTORE_METHOD, restore, {
    methods: ['POST'],
    roles: ['System Manager'],
    params: [{ name: 'name', type: 'string', required: true }],
  });
  methods.registerDocMethod(
    DELETED_DOCUMENT_DOCTYPE,
    'restore',
    async ({ ctx, services, doc }) => {
      const restoredName = await restoreDeletedDocument(ctx, services.documents, String(doc.name));
      doc.restored = 1;
      doc.new_name = restoredName;
      return restoredName;
    },
    { methods: ['POST'], description: 'Restores the archived document under its original name, as a draft (System Manager).' },
  );
}
