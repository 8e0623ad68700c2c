import { renameFieldSecrets } from '../auth/field-secrets.js';
import { userNameClash } from '../auth/user-names.js';
import { DoesNotExistError, DuplicateEntryError, UniqueValidationError, ValidationError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import type { DocContext } from './doc-context.js';
import type { DocumentService } from './document-service.js';
import { validateName } from './naming/name-validation.js';
import { renameReferences, renameUserReferences } from './links/rename-references.js';

/** Options of a rename. */
export interface RenameOptions {
  /** Merge into an existing document of the new name: not supported, refused with a 417. */
  readonly merge?: boolean;
}

/**
 * Names the server relies on (the Administrator and Guest users, the automatic and administrator
 * roles); renaming them would lock people out or silently change permissions.
 */
const PROTECTED_NAMES: Readonly<Record<string, readonly string[]>> = {
  User: ['Administrator', 'Guest'],
  Role: ['Administrator', 'Guest', 'All', 'System Manager', 'Desk User'],
};

/** DocTypes whose rows are metadata: when a rename touches them, every process must reload it. */
const METADATA_DOCTYPES = new Set(['DocType', 'DocField', 'DocPerm']);

/**
 * Renames a document (reference `frappe.rename_doc`), all in the caller's transaction: the row, its
 * child rows' `parent`, a `field:` naming field, stored Password secrets, and every reference to it
 * (Links, Dynamic Links, Singles' values, File attachments, Versions: see renameReferences); then
 * the after_rename hooks run. Needs write permission from a role (a share is not enough) and the DocType's `allow_rename`. A taken
 * name is 409 DuplicateEntryError, an invalid one 409 NameError, the same name 417. Returns the
 * new name.
 */
export async function renameDocument(
  ctx: DocContext,
  service: DocumentService,
  doctype: string,
  oldName: string,
  newName: string,
  opts: RenameOptions = {},
): Promise<string> {
  const meta = ctx.metas.get(doctype);
  if (meta.isChild || meta.isSingle) throw new ValidationError(`${doctype} documents cannot be renamed`, { doctype });
  await service.authorize(ctx, meta, 'write');
  if (meta.name === 'DocType') throw new ValidationError('Renaming a DocType is not supported', { doctype });
  if (meta.def.allow_rename !== 1) throw new ValidationError(`${doctype} not allowed to be renamed`, { doctype });
  if (opts.merge) throw new ValidationError('Merging documents on rename is not supported', { doctype });

  const repo = service.repo(ctx);
  const doc = await repo.load(ctx.q, meta, oldName, { forUpdate: true });
  if (!doc) throw new DoesNotExistError(`${doctype} ${oldName} not found`, { doctype });
  // A share gives write on one document, never the right to rename it: renaming one's own User
  // (shared with its user) would otherwise take another account's name (docs/security.md).
  await service.authorize(ctx, meta, 'write', doc, { viaShares: false });
  if (PROTECTED_NAMES[doctype]?.includes(oldName)) {
    throw new ValidationError(`${doctype} ${oldName} is built in and cannot be renamed`, { doctype });
  }
  const target = validateName(meta, newName);
  if (target === oldName) {
    throw new ValidationError('No changes made', { doctype, messages: [{ message: 'No changes made: the new name is the current name' }] });
  }
  if (await repo.exists(ctx.q, meta, target)) throw duplicate(meta, target);
  if (meta.name === 'User') {
    const clash = await userNameClash(ctx, target, oldName);
    if (clash !== undefined) throw duplicate(meta, target, undefined, clash);
  }

  const touched = new Set<string>();
  const set = async (table: Meta, column: string, where: Record<string, string>): Promise<void> => {
    let query = ctx.dialect.builder.updateTable(table.tableName).set({ [column]: target });
    for (const [col, value] of Object.entries(where)) query = query.where(col, '=', value);
    const { changes } = await ctx.q.run(query.compile());
    if (changes > 0) touched.add(table.name);
  };

  try {
    await set(meta, 'name', { name: oldName });
  } catch (err) {
    // Another transaction took the name between the check and the write.
    throw err instanceof DuplicateEntryError || err instanceof UniqueValidationError ? duplicate(meta, target, err) : err;
  }
  const namingField = meta.def.autoname?.startsWith('field:') ? meta.def.autoname.slice(6).trim() : undefined;
  if (namingField && meta.field(namingField)?.column) await set(meta, namingField, { name: target });
  for (const tf of meta.tableFields) {
    if (tf.def.options && ctx.metas.has(tf.def.options)) {
      await set(ctx.metas.get(tf.def.options), 'parent', { parent: oldName, parenttype: meta.name });
    }
  }
  const singlesTouched = await renameReferences(ctx, meta, oldName, target, set);
  await renameFieldSecrets(ctx.q, ctx.dialect, meta.name, oldName, target);
  if (meta.name === 'User') await renameUserReferences(ctx, oldName, target, doc.email === oldName, set);
  // A Single's values are read with the metadata (System Settings), so a changed one reloads it too.
  if (singlesTouched.length > 0 || [...touched].some((d) => METADATA_DOCTYPES.has(d))) await ctx.metas.bumpVersion(ctx.q);
  const renamed = await repo.load(ctx.q, meta, target);
  if (renamed) await ctx.hooks.run(meta.name, 'after_rename', { doc: renamed, before: doc, ctx });
  return target;
}

function duplicate(meta: Meta, name: string, cause?: unknown, clash?: string): DuplicateEntryError {
  const message =
    clash === undefined
      ? `Another ${meta.name} with name ${name} exists, select another name`
      : `${name} would be confused with User ${clash} (same name in another case, or its email), select another name`;
  return new DuplicateEntryError(message, { doctype: meta.name, messages: [{ message, title: 'Duplicate Name' }], cause });
}
