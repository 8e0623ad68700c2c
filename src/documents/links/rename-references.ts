import { SESSIONS_TABLE } from '../../auth/auth-tables.js';
import type { Meta } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';
import { linkPathsTo } from './link-paths.js';
import { readSingleRows, SINGLES_TABLE } from '../singles/single-rows.js';

/** Sets `column` of `table` to the new name in the rows matching every `where` pair, noting the DocType when a row changed. */
export type SetColumn = (table: Meta, column: string, where: Record<string, string>) => Promise<void>;

/**
 * Plain-text (doctype, name) pairs that key a document without being a Dynamic Link: File
 * attachments, and Version history (reference `rename_versions`). Deleted Document is left out on
 * purpose: its name is that of a document deleted before, not of the one being renamed.
 */
const NAME_KEYED: readonly { doctype: string; typeField: string; nameField: string }[] = [
  { doctype: 'File', typeField: 'attached_to_doctype', nameField: 'attached_to_name' },
  { doctype: 'Version', typeField: 'ref_doctype', nameField: 'docname' },
];

/**
 * Moves everything that points at `meta` `oldName` to `newName`: Link fields naming its DocType and
 * Dynamic Links whose type field holds it, in tables, child tables and Singles' stored values
 * (reference `update_link_field_values`, `update_dynamic_links`), then File attachments and Versions.
 */
export async function renameReferences(ctx: DocContext, meta: Meta, oldName: string, newName: string, set: SetColumn): Promise<string[]> {
  const singlesTouched: string[] = [];
  for (const path of linkPathsTo(ctx, meta)) {
    if (path.meta.isSingle) {
      if (await renameInSingle(ctx, path.meta, path.fieldname, path.typeField, meta.name, oldName, newName)) singlesTouched.push(path.meta.name);
    } else {
      const where = path.typeField ? { [path.fieldname]: oldName, [path.typeField]: meta.name } : { [path.fieldname]: oldName };
      await set(path.meta, path.fieldname, where);
    }
  }
  for (const keyed of NAME_KEYED) {
    if (!ctx.metas.has(keyed.doctype)) continue;
    const table = ctx.metas.get(keyed.doctype);
    if (!table.field(keyed.nameField)?.column || !table.field(keyed.typeField)?.column) continue;
    await set(table, keyed.nameField, { [keyed.nameField]: oldName, [keyed.typeField]: meta.name });
  }
  return singlesTouched;
}

/** Rewrites one Single's stored link value when it names the renamed document; true when it did. */
async function renameInSingle(
  ctx: DocContext,
  single: Meta,
  fieldname: string,
  typeField: string | undefined,
  doctype: string,
  oldName: string,
  newName: string,
): Promise<boolean> {
  const rows = await readSingleRows(ctx.q, ctx.dialect, single.name, { forUpdate: true });
  if (rows.get(fieldname) !== oldName || (typeField && rows.get(typeField) !== doctype)) return false;
  const update = ctx.dialect.builder
    .updateTable(SINGLES_TABLE)
    .set({ value: newName })
    .where('doctype', '=', single.name)
    .where('field', '=', fieldname)
    .where('value', '=', oldName);
  return (await ctx.q.run(update.compile())).changes > 0;
}

/**
 * What a User's name also keys (reference `User.after_rename`): `owner` and `modified_by` of every
 * table, the user's sessions, and the email when it was the name.
 */
export async function renameUserReferences(ctx: DocContext, oldName: string, newName: string, emailWasName: boolean, set: SetColumn): Promise<void> {
  for (const table of ctx.metas.names().map((n) => ctx.metas.get(n))) {
    if (table.isSingle) continue;
    await set(table, 'owner', { owner: oldName });
    await set(table, 'modified_by', { modified_by: oldName });
  }
  await ctx.q.run(ctx.dialect.builder.updateTable(SESSIONS_TABLE).set({ user: newName }).where('user', '=', oldName).compile());
  if (emailWasName) await set(ctx.metas.get('User'), 'email', { name: newName });
}
