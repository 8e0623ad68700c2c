import { CHILD_FIELDS, STANDARD_FIELDS, type Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { DataError, DoesNotExistError, ValidationError } from '../errors/index.js';
import type { DocContext } from './doc-context.js';
import type { DocumentService } from './document-service.js';

/*
 * Child rows addressed on their own (docs/api.md "Methods", fw.client get/insert/set_value/delete on a
 * child DocType). Writes always go through the parent: the parent is loaded under a row lock, its
 * table changed, and the parent saved with the parent's permissions and validation.
 */

const ROW_KEYS_NOT_SETTABLE = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, 'doctype']);

function rowNotFound(meta: Meta, name: string): DoesNotExistError {
  return new DoesNotExistError(`${meta.name} ${name} not found`, { doctype: meta.name });
}

/** The Table field of `parent` that holds rows of `child`, by name, or a 417. */
function tableField(parent: Meta, child: Meta, fieldname: string): void {
  const field = parent.field(fieldname);
  if (!field?.type.isTable || field.def.options !== child.name) {
    throw new ValidationError(`${parent.name} has no table ${fieldname} of ${child.name}`, { doctype: parent.name });
  }
}

/** The stored row named `name` of a child DocType, without permission checks. */
async function loadRow(ctx: DocContext, service: DocumentService, child: Meta, name: string): Promise<Doc | undefined> {
  return service.repo(ctx).load(ctx.q, child, name);
}

/** The rows of one table of a parent document, read under a lock so concurrent edits of the table queue. */
async function lockedRows(ctx: DocContext, service: DocumentService, parent: Meta, parentName: string, fieldname: string): Promise<Doc[]> {
  const doc = await service.repo(ctx).load(ctx.q, parent, parentName, { forUpdate: true });
  if (!doc) throw new DoesNotExistError(`${parent.name} ${parentName} not found`, { doctype: parent.name });
  const rows = doc[fieldname];
  return Array.isArray(rows) ? (rows as Doc[]) : [];
}

/** Field values a client may set on a row: standard and linking keys are dropped. */
function settable(values: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(values)) if (!ROW_KEYS_NOT_SETTABLE.has(k)) out[k] = v;
  return out;
}

/**
 * Reads one child row: `parent` names the parent DocType (417 DataError without it, as for lists);
 * the caller needs read permission on the parent document.
 */
export async function getChildRow(ctx: DocContext, service: DocumentService, doctype: string, name: string, parent: string | undefined): Promise<Doc> {
  const child = ctx.metas.get(doctype);
  if (!parent) throw new DataError(`${doctype} is a child table: pass parent=<parent DocType> to read it`);
  const parentMeta = ctx.metas.get(parent);
  if (!parentMeta.tableFields.some((f) => f.def.options === child.name)) {
    throw new DataError(`${parent} has no child table of ${doctype}`);
  }
  await service.authorize(ctx, parentMeta, 'read');
  const row = await loadRow(ctx, service, child, name);
  if (!row || row.parenttype !== parent) throw rowNotFound(child, name);
  const parentDoc = await service.get(ctx, parent, String(row.parent));
  const rows = parentDoc[String(row.parentfield)];
  const found = Array.isArray(rows) ? (rows as Doc[]).find((r) => r.name === name) : undefined;
  if (!found) throw rowNotFound(child, name);
  return found;
}

/**
 * Appends a row to its parent's table and saves the parent, which is returned. The row names its
 * parent with `parenttype`, `parent` and `parentfield`; a client-chosen row name is not kept.
 */
export async function insertChildRow(ctx: DocContext, service: DocumentService, row: Doc): Promise<Doc> {
  const child = ctx.metas.get(String(row.doctype));
  const { parenttype, parent, parentfield } = row;
  const given = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (!given(parenttype) || !given(parent) || !given(parentfield)) {
    throw new ValidationError('Parenttype, Parent and Parentfield are required to insert a child record', { doctype: child.name });
  }
  const parentMeta = ctx.metas.get(parenttype);
  tableField(parentMeta, child, parentfield);
  await service.authorize(ctx, parentMeta, 'write');
  const rows = await lockedRows(ctx, service, parentMeta, parent, parentfield);
  return service.update(ctx, parenttype, parent, { [parentfield]: [...rows, settable(row)] });
}

/** Where a stored child row sits: its parent DocType, parent name and table field. */
async function locate(ctx: DocContext, service: DocumentService, doctype: string, name: string): Promise<{ parentMeta: Meta; parent: string; field: string }> {
  const child = ctx.metas.get(doctype);
  // Refused before the row is looked up, so a 404 never tells a caller who may not write anyway that a row exists.
  const parents = ctx.metas
    .names()
    .map((n) => ctx.metas.get(n))
    .filter((m) => m.tableFields.some((f) => f.def.options === child.name));
  let writable = false;
  for (const m of parents) writable = writable || (await service.can(ctx, m, 'write'));
  if (!writable) await service.authorize(ctx, parents[0] ?? child, 'write');
  const row = await loadRow(ctx, service, child, name);
  if (!row || typeof row.parenttype !== 'string' || !ctx.metas.has(row.parenttype)) throw rowNotFound(child, name);
  return { parentMeta: ctx.metas.get(row.parenttype), parent: String(row.parent), field: String(row.parentfield) };
}

/** Changes fields of one child row and saves its parent (write permission on the parent), which is returned. */
export async function updateChildRow(ctx: DocContext, service: DocumentService, doctype: string, name: string, values: Doc): Promise<Doc> {
  const { parentMeta, parent, field } = await locate(ctx, service, doctype, name);
  await service.authorize(ctx, parentMeta, 'write');
  const rows = await lockedRows(ctx, service, parentMeta, parent, field);
  const changes = settable(values);
  return service.update(ctx, parentMeta.name, parent, {
    [field]: rows.map((r) => (r.name === name ? { ...r, ...changes } : r)),
  });
}

/** Removes one child row from its parent's table and saves the parent (write permission on the parent). */
export async function deleteChildRow(ctx: DocContext, service: DocumentService, doctype: string, name: string): Promise<void> {
  const { parentMeta, parent, field } = await locate(ctx, service, doctype, name);
  await service.authorize(ctx, parentMeta, 'write');
  const rows = await lockedRows(ctx, service, parentMeta, parent, field);
  await service.update(ctx, parentMeta.name, parent, { [field]: rows.filter((r) => r.name !== name) });
}
