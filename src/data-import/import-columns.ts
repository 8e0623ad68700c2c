import type { Meta, ResolvedField } from '../meta/meta.js';
import type { MetaRegistry } from '../meta/meta-registry.js';

/** Where a column's values go: a parent field, or a field of one child table (`table` is the Table field). */
export interface ColumnTarget {
  /** The Table field of the parent, for a child column. */
  readonly table?: ResolvedField;
  /** The DocType the field belongs to (the parent, or the child DocType). */
  readonly meta: Meta;
  /** The field, or `name` for the ID column. */
  readonly fieldname: string;
  readonly field?: ResolvedField;
}

/** A column of the import template: its heading and where it goes. */
export interface TemplateColumn extends ColumnTarget {
  readonly header: string;
}

/**
 * Fields a file can fill: those with a column, minus what only the system writes. Read-only fields
 * are left out unless they are mandatory, as the reference's Exporter does.
 */
function importableFields(meta: Meta): ResolvedField[] {
  return meta.valueFields.filter((f) => !f.def.hidden && (!f.def.read_only || f.def.reqd));
}

function tableMeta(metas: MetaRegistry, table: ResolvedField): Meta | undefined {
  const child = table.def.options;
  return child && metas.has(child) ? metas.get(child) : undefined;
}

/** Labels used by more than one field: those columns are headed by fieldname instead. */
function clashingLabels(fields: readonly ResolvedField[]): Set<string> {
  const seen = new Set<string>();
  const clash = new Set<string>(['ID']);
  for (const f of fields) {
    const label = f.def.label ?? f.def.fieldname;
    if (seen.has(label)) clash.add(label);
    seen.add(label);
  }
  return clash;
}

/**
 * The columns of the import template, with the reference's headings (docs/import-export.md
 * "Import"): `ID`, then the parent's fields by label; for each child table `ID (Table Label)` and
 * `Label (Table Label)`. A label two fields share is replaced by `fieldname` (`table.fieldname`).
 * `selected` limits the fields: keyed by the DocType name for the parent, by the Table fieldname
 * (or the child DocType) for a table, as the reference's `export_fields`.
 */
export function templateColumns(meta: Meta, metas: MetaRegistry, selected?: Readonly<Record<string, readonly string[]>>): TemplateColumn[] {
  const columns: TemplateColumn[] = [{ header: 'ID', meta, fieldname: 'name' }];
  const parentFields = importableFields(meta);
  const parentClash = clashingLabels(parentFields);
  const parentPick = selected?.[meta.name];
  for (const f of parentFields) {
    if (parentPick && !parentPick.includes(f.def.fieldname)) continue;
    const label = f.def.label ?? f.def.fieldname;
    columns.push({ header: parentClash.has(label) ? f.def.fieldname : label, meta, fieldname: f.def.fieldname, field: f });
  }
  for (const table of meta.tableFields) {
    const child = tableMeta(metas, table);
    if (!child) continue;
    const pick = selected ? (selected[table.def.fieldname] ?? selected[child.name]) : undefined;
    if (selected && !pick) continue;
    const tableLabel = table.def.label ?? table.def.fieldname;
    const fields = importableFields(child);
    const clash = clashingLabels(fields);
    columns.push({ header: `ID (${tableLabel})`, table, meta: child, fieldname: 'name' });
    for (const f of fields) {
      if (pick && !pick.includes(f.def.fieldname)) continue;
      const label = f.def.label ?? f.def.fieldname;
      const header = clash.has(label) ? `${table.def.fieldname}.${f.def.fieldname}` : `${label} (${tableLabel})`;
      columns.push({ header, table, meta: child, fieldname: f.def.fieldname, field: f });
    }
  }
  return columns;
}

/** Every heading that names a target, in the forms the reference accepts; ambiguous ones are dropped. */
function headingIndex(meta: Meta, metas: MetaRegistry): Map<string, ColumnTarget> {
  const index = new Map<string, ColumnTarget>();
  const ambiguous = new Set<string>();
  const add = (key: string, target: ColumnTarget) => {
    const k = key.trim().toLowerCase();
    const known = index.get(k);
    if (known && (known.fieldname !== target.fieldname || known.table !== target.table)) ambiguous.add(k);
    else index.set(k, target);
  };
  add('ID', { meta, fieldname: 'name' });
  add('name', { meta, fieldname: 'name' });
  for (const f of importableFieldsForMatching(meta)) {
    const target = { meta, fieldname: f.def.fieldname, field: f };
    add(f.def.fieldname, target);
    if (f.def.label) {
      add(f.def.label, target);
      add(`${f.def.label} (${f.def.fieldname})`, target);
    }
  }
  for (const table of meta.tableFields) {
    const child = tableMeta(metas, table);
    if (!child) continue;
    const names = [table.def.fieldname, ...(table.def.label ? [table.def.label] : [])];
    for (const tableName of names) add(`ID (${tableName})`, { table, meta: child, fieldname: 'name' });
    add(`${table.def.fieldname}.name`, { table, meta: child, fieldname: 'name' });
    for (const f of importableFieldsForMatching(child)) {
      const target = { table, meta: child, fieldname: f.def.fieldname, field: f };
      add(`${table.def.fieldname}.${f.def.fieldname}`, target);
      for (const tableName of names) {
        add(`${f.def.label ?? f.def.fieldname} (${tableName})`, target);
        add(`${f.def.fieldname} (${tableName})`, target);
      }
    }
  }
  for (const k of ambiguous) index.delete(k);
  return index;
}

/** Matching accepts every field with a column that the system does not set alone. */
function importableFieldsForMatching(meta: Meta): ResolvedField[] {
  return meta.valueFields.filter((f) => !f.def.read_only || f.def.reqd);
}

/** A column of an uploaded file: its heading, and where its values go unless it is skipped. */
export interface FileColumn {
  readonly index: number;
  readonly header: string;
  readonly target: ColumnTarget | undefined;
  /** Why the column is skipped, when it is. */
  readonly skipReason?: string;
}

/** The reference's mapping value that skips a column. */
export const DONT_IMPORT = "Don't Import";

/**
 * Matches the header row of a file to fields: a heading names a field by label, fieldname or
 * `Label (fieldname)`, a child field by `Label (Table Label)` or `table.fieldname`, the key by
 * `ID`/`name`. `columnToField` (the Data Import's `template_options.column_to_field_map`) can
 * point a heading elsewhere or skip it. Unknown and repeated headings are skipped.
 */
export function matchColumns(headers: readonly string[], meta: Meta, metas: MetaRegistry, columnToField: Readonly<Record<string, unknown>> = {}): FileColumn[] {
  const index = headingIndex(meta, metas);
  const used = new Set<string>();
  return headers.map((raw, i) => {
    const header = raw.trim();
    const mapped = columnToField[header];
    if (mapped === DONT_IMPORT) return { index: i, header, target: undefined, skipReason: `Column ${header || i + 1} is set not to be imported` };
    const target = index.get((typeof mapped === 'string' && mapped !== '' ? mapped : header).toLowerCase());
    if (header === '' && !target) return { index: i, header, target: undefined, skipReason: `Column ${i + 1} has no heading and will be skipped` };
    if (!target) return { index: i, header, target: undefined, skipReason: `Column ${header} cannot be matched with any field and will be skipped` };
    const key = `${target.table?.def.fieldname ?? ''}.${target.fieldname}`;
    if (used.has(key)) return { index: i, header, target: undefined, skipReason: `Column ${header} repeats another column's field and will be skipped` };
    used.add(key);
    return { index: i, header, target };
  });
}
