import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { MethodRegistry } from '../method-registry.js';

/** The path of the revert method (also answering under `frappe.`). */
export const REVERT_METHOD = 'fw.core.doctype.version.version.revert';

/** A Version's `changed` list: `[fieldname, before, after]` triples. */
function changedFields(data: unknown): [string, unknown, unknown][] {
  let parsed: unknown = data;
  if (typeof data === 'string') {
    try {
      parsed = JSON.parse(data);
    } catch {
      return [];
    }
  }
  const changed = (parsed as { changed?: unknown } | null)?.changed;
  if (!Array.isArray(changed)) return [];
  return changed.filter((c): c is [string, unknown, unknown] => Array.isArray(c) && c.length === 3 && typeof c[0] === 'string');
}

/**
 * The field values that take a document back to how it was right after `version`: walking the
 * later Versions from the newest to the oldest, each changed field gets the value it had before
 * that change, so the oldest later change decides. Only the DocType's own value fields are
 * touched (never docstatus, names or stamps); child-table changes are not reverted
 * (docs/admin-ui.md "Undo").
 */
export function revertValues(later: readonly { data: unknown }[], valueFields: ReadonlySet<string>): Doc {
  const values: Doc = {};
  for (const v of later) {
    for (const [field, before] of changedFields(v.data)) if (valueFields.has(field)) values[field] = before;
  }
  return values;
}

/**
 * Reverts a document to one of its Versions, as a new save: the caller must read the Version and
 * write the document (the ordinary update checks both the right and the changed document, with
 * its `modified`, so a concurrent save is a TimestampMismatchError). Only drafts (and documents of
 * DocTypes that are not submittable) can be reverted: a submitted document is amended instead.
 * Answers the saved document.
 */
export async function revertToVersion(ctx: DocContext, documents: DocumentService, versionName: string): Promise<Doc> {
  const version = await documents.get(ctx, 'Version', versionName);
  const doctype = String(version.ref_doctype ?? '');
  const docname = String(version.docname ?? '');
  if (!ctx.metas.has(doctype)) throw new ValidationError(`Version ${versionName} is about DocType ${doctype}, which no longer exists`);
  const meta = ctx.metas.get(doctype);
  const current = await documents.get(ctx, doctype, docname);
  if (Number(current.docstatus ?? 0) !== 0) {
    throw new ValidationError(`${doctype} ${docname} is not a draft: only a draft can be reverted to an earlier version (amend a cancelled one instead)`);
  }
  const later = (
    await listDocuments(
      ctx,
      await listQueryAfterAccess(ctx, 'Version', {
        fields: ['name', 'creation', 'data'],
        filters: [
          ['ref_doctype', '=', doctype],
          ['docname', '=', docname],
          ['creation', '>', String(version.creation)],
        ],
        order_by: 'creation desc',
        limit_page_length: 0,
      }),
    )
  ).rows as { data: unknown }[];
  const values = revertValues(later, new Set(meta.valueFields.filter((f) => !f.type.secret).map((f) => f.def.fieldname)));
  if (Object.keys(values).length === 0) return current;
  return documents.update(ctx, doctype, docname, { ...values, modified: current.modified });
}

/** Reverting to a Version: POST `fw.core.doctype.version.version.revert {name}`. */
export function registerVersionRevertMethods(methods: MethodRegistry): void {
  methods.register(REVERT_METHOD, ({ ctx, services, args }) => revertToVersion(ctx, services.documents, String(args.name)), {
    methods: ['POST'],
    params: [{ name: 'name', type: 'string', required: true }],
    description:
      'Saves the document a Version belongs to with the values it had right after that Version (drafts only; read on Version, write on the document).',
  });
}
