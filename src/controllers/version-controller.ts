import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { loadReferencedDocument } from '../documents/links/referenced-document.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { holdsExplicitRoleFor } from '../permissions/automatic-roles.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { isWithheld } from '../permissions/field-level.js';
import { listRestriction } from '../permissions/list-restriction.js';
import { permissionContext } from '../documents/unit-permissions.js';
import { permittedLevels, roleGrant } from '../permissions/role-permissions.js';
import type { Condition } from '../query/list-query.js';
import { documentDiff } from './version-diff.js';

/** The DocType that holds change history. */
export const VERSION_DOCTYPE = 'Version';

/** The tracked DocType of a document the hooks see, or undefined when it is not one that keeps history. */
function trackedMeta(ctx: DocContext, doctype: unknown): Meta | undefined {
  if (typeof doctype !== 'string' || !ctx.metas.has(doctype)) return undefined;
  const meta = ctx.metas.get(doctype);
  return meta.def.track_changes === 1 && !meta.isChild && !meta.isSingle ? meta : undefined;
}

/**
 * True when the principal may read every field of the DocType and its child tables: a Version's
 * diff holds old and new values of whatever changed, permlevel > 0 fields included, so it is shown
 * through the source document only to those the document itself would show every field to.
 */
function readsEveryLevel(ctx: DocContext, meta: Meta): boolean {
  const levels = permittedLevels(ctx.principal, meta, 'read');
  const childMetas = meta.tableFields.map((tf) => ctx.metas.get(tf.def.options ?? ''));
  return [meta, ...childMetas].every((m) => m.fields.every((f) => !isWithheld(f.def, levels)));
}

/** True when the principal may read the document a Version describes (it must still exist) and all its fields. */
async function mayReadSource(ctx: DocContext, version: Doc): Promise<boolean> {
  const source = await loadReferencedDocument(ctx, version.ref_doctype, version.docname);
  if (source === undefined || !readsEveryLevel(ctx, source.meta)) return false;
  return mayUseDocument(permissionContext(ctx), source.meta, 'read', source.doc);
}

/**
 * The tracked DocTypes whose every document the principal may read: role read on all documents
 * and nothing (if_owner, User Permissions, hooks) narrowing the rows. Versions of other DocTypes
 * stay out of lists, since a list condition cannot follow per-document rules of another table.
 */
async function fullyReadableTrackedDocTypes(ctx: DocContext): Promise<string[]> {
  const pc = permissionContext(ctx);
  const out: string[] = [];
  for (const name of ctx.metas.names()) {
    const meta = trackedMeta(ctx, name);
    // Checked first: listRestriction refuses (403) a DocType the roles do not let the user read.
    if (!meta || roleGrant(ctx.principal, meta, 'read') !== 'all') continue;
    if (!readsEveryLevel(ctx, meta)) continue;
    if ((await listRestriction(pc, meta)) === undefined) out.push(name);
  }
  return out;
}

/**
 * Version history (docs/architecture.md "Version history and Deleted Document"): every save of a document whose DocType has `track_changes`
 * writes one Version holding the diff of fields and child rows; an insert writes none, nor a save
 * that changed nothing but `modified`. Versions are written without permission checks (the user
 * needs no right on Version). A Version is readable by System Managers and by whoever may read the
 * document it describes with every field level; lists show other users the Versions of DocTypes
 * they may read in full.
 */
export function registerVersionController(hooks: HookRegistry, documents: DocumentService): void {
  hooks.on('*', 'on_change', async ({ doc, before, ctx }, next) => {
    await next();
    if (before === undefined) return;
    const meta = trackedMeta(ctx, before.doctype ?? doc.doctype);
    if (!meta) return;
    const diff = documentDiff(meta, before, doc, {
      metaOf: (d) => ctx.metas.get(d),
      fieldContext: { doctype: meta.name, timeZone: ctx.settings.timeZone, user: ctx.principal.user },
    });
    if (!diff) return;
    await documents.insert(
      ctx,
      VERSION_DOCTYPE,
      { ref_doctype: meta.name, docname: String(doc.name), data: JSON.stringify(diff, null, 1) },
      { ignorePermissions: true },
    );
  });

  hooks.permissions.onHasPermission(VERSION_DOCTYPE, async ({ doc, meta, right, principal, ctx }) => {
    // Read implies select, as in the role permissions.
    if (holdsExplicitRoleFor(principal, meta, right === 'select' ? 'read' : right)) return true;
    return mayReadSource(ctx, doc);
  });

  hooks.permissions.onQueryConditions(VERSION_DOCTYPE, async ({ meta, principal, ctx }): Promise<Condition | undefined> => {
    if (holdsExplicitRoleFor(principal, meta, 'read')) return undefined;
    return { field: { field: 'ref_doctype' }, op: 'in', value: await fullyReadableTrackedDocTypes(ctx) };
  });
}
