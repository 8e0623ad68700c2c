import { DataError, ValidationError } from '../../errors/index.js';
import { STANDARD_FIELDS } from '../../meta/doctype.js';
import type { Meta } from '../../meta/meta.js';
import { hideUnreadableFields } from '../../permissions/hide-unreadable-fields.js';
import type { DocContext } from '../doc-context.js';
import type { DocumentGuard } from '../document-guard.js';
import { loadSingle } from './single-document.js';

/** The field types whose empty value `get_single_value` answers as `""` (the reference's `cast` → `cstr`). */
const TEXT_TYPES: ReadonlySet<string> = new Set(['Data', 'Text', 'Small Text', 'Long Text', 'Text Editor', 'Select', 'Link', 'Dynamic Link']);

function checkFieldnames(meta: Meta, fieldnames: readonly string[]): void {
  for (const name of fieldnames) {
    if ((STANDARD_FIELDS as readonly string[]).includes(name) || meta.field(name)?.column) continue;
    throw new DataError(`Field ${name} does not exist on ${meta.name}`, { doctype: meta.name });
  }
}

/**
 * Values of a Single DocType's document by field name, as its document shows them (stored values,
 * defaults for fields never stored, standard fields such as `modified` too). Each name must be a
 * value or standard field (417 DataError otherwise); a field the principal may not read is null.
 * The caller checks read permission on the DocType.
 */
export async function readSingleValues(ctx: DocContext, meta: Meta, fieldnames: readonly string[]): Promise<Record<string, unknown>> {
  checkFieldnames(meta, fieldnames);
  const doc = hideUnreadableFields(ctx.principal, meta, await loadSingle(ctx, meta), (d) => ctx.metas.get(d));
  return Object.fromEntries(fieldnames.map((name) => [name, doc[name] ?? null]));
}

/**
 * One value for `get_single_value`: the document's value, with the reference's casting of an empty
 * one (`frappe.db.get_single_value`): 0 for numeric fields, `""` for text fields, null otherwise.
 */
export async function readSingleValue(ctx: DocContext, meta: Meta, fieldname: string): Promise<unknown> {
  const value = (await readSingleValues(ctx, meta, [fieldname]))[fieldname];
  if (value !== null) return value;
  const field = meta.field(fieldname);
  if (field?.type.numeric) return 0;
  if (field && TEXT_TYPES.has(field.def.fieldtype)) return '';
  return null;
}

/**
 * `get_single_value`: one value of a Single DocType (read permission first; 417 for a DocType
 * that is not a Single).
 */
export async function getSingleValue(ctx: DocContext, guard: DocumentGuard, doctype: string, fieldname: string): Promise<unknown> {
  const meta = ctx.metas.get(doctype);
  await guard.authorize(ctx, meta, 'read');
  if (!meta.isSingle) throw new ValidationError(`${meta.name} is not a Single DocType`, { doctype: meta.name });
  return readSingleValue(ctx, meta, fieldname);
}
