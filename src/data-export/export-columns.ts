import { DataError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import type { FieldAccess } from '../permissions/list-field-access.js';
import { parseFieldRef } from '../query/parse-field-ref.js';

/** How a column's values are written: XLSX stores numbers and dates as such (docs/import-export.md "Export"). */
export type CellKind = 'text' | 'number' | 'date' | 'datetime';

/** One exported column: the list field that reads it, its heading and how its cells are written. */
export interface ExportColumn {
  /** The `fields` item handed to the list query. */
  readonly field: string;
  readonly heading: string;
  readonly kind: CellKind;
}

/** The reference's headings of the standard columns ("ID" for `name`). */
const STANDARD_HEADINGS: Readonly<Record<string, string>> = {
  name: 'ID',
  owner: 'Created By',
  creation: 'Created On',
  modified: 'Last Updated On',
  modified_by: 'Last Updated By',
  docstatus: 'Document Status',
  idx: 'Index',
  parent: 'Parent',
  parentfield: 'Parent Field',
  parenttype: 'Parent Type',
};
const STANDARD_KINDS: Readonly<Record<string, CellKind>> = { creation: 'datetime', modified: 'datetime', docstatus: 'number', idx: 'number' };
const NUMBER_TYPES = new Set(['Int', 'Float', 'Currency', 'Percent', 'Check', 'Rating', 'Duration']);

/** What resolving needs: the DocType exported, the others it may reach, and the caller's field check. */
export interface ColumnContext {
  readonly meta: Meta;
  readonly metaOf: (doctype: string) => Meta;
  readonly canRead: FieldAccess;
}

/**
 * The columns of an export, in the order asked: `fields` items of the list grammar (a field, a
 * `` `tabChild`.field `` of a child table, a `link.field`), or every readable value field after
 * `name` when none are named. A column the caller may not read (above their permlevel) is left
 * out, never exported empty (docs/import-export.md "Export").
 */
export function exportColumns(fields: unknown, ctx: ColumnContext): ExportColumn[] {
  const items = fields === undefined || fields === null || fields === '*' ? defaultFields(ctx.meta) : fields;
  if (!Array.isArray(items) || items.length === 0) throw new DataError('fields must be a list of fields to export');
  const columns: ExportColumn[] = [];
  for (const item of items) {
    if (item === '*') {
      for (const field of defaultFields(ctx.meta)) pushColumn(columns, field, ctx);
      continue;
    }
    pushColumn(columns, item, ctx);
  }
  if (columns.length === 0) throw new DataError('None of the fields asked for may be exported');
  return columns;
}

function defaultFields(meta: Meta): string[] {
  return ['name', ...meta.valueFields.filter((f) => f.def.fieldtype !== 'Password').map((f) => f.def.fieldname)];
}

function pushColumn(columns: ExportColumn[], item: unknown, ctx: ColumnContext): void {
  const ref = parseFieldRef(item, 'fields');
  const owner = ownerMeta(ref, ctx);
  if (!ctx.canRead(owner, ref.field)) return;
  const field = owner.field(ref.field);
  if (field?.def.fieldtype === 'Password') return;
  if (!field && !owner.hasColumn(ref.field)) throw new DataError(`Field not found: ${String(item)}`);
  const base = field?.def.label || STANDARD_HEADINGS[ref.field] || ref.field;
  // A column of another table names it, as the reference writes "Item Code (Sales Invoice Item)".
  const heading = owner === ctx.meta ? base : `${base} (${owner.name})`;
  columns.push({ field: String(item).trim(), heading, kind: kindOf(field?.def.fieldtype, ref.field) });
}

function ownerMeta(ref: ReturnType<typeof parseFieldRef>, ctx: ColumnContext): Meta {
  if (ref.doctype !== undefined) return ref.doctype === ctx.meta.name ? ctx.meta : ctx.metaOf(ref.doctype);
  if (ref.via === undefined) return ctx.meta;
  const link = ctx.meta.field(ref.via);
  if (!link || (link.def.fieldtype !== 'Link' && link.def.fieldtype !== 'Table') || !link.def.options) {
    throw new DataError(`Field not found: ${ref.via}.${ref.field}`);
  }
  return ctx.metaOf(link.def.options);
}

function kindOf(fieldtype: string | undefined, fieldname: string): CellKind {
  if (fieldtype === undefined) return STANDARD_KINDS[fieldname] ?? 'text';
  if (fieldtype === 'Date') return 'date';
  if (fieldtype === 'Datetime') return 'datetime';
  return NUMBER_TYPES.has(fieldtype) ? 'number' : 'text';
}
