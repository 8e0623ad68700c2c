import { CHILD_FIELDS, STANDARD_FIELDS, type DocField, type DocTypeDef } from './doctype.js';
import type { FieldType } from './field-types/field-type.js';
import type { FieldTypeRegistry } from './field-types/registry.js';
import type { ColumnSpec } from '../storage/dialect.js';

/** A field together with its resolved type. */
export interface ResolvedField {
  readonly def: DocField;
  readonly type: FieldType;
  /** The column, when the type stores a value in the table. */
  readonly column: ColumnSpec | undefined;
}

/** Columns of the standard fields, shared by every table. */
export const STANDARD_COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  name: { kind: 'varchar', length: 140 },
  owner: { kind: 'varchar', length: 140 },
  creation: { kind: 'datetime' },
  modified: { kind: 'datetime' },
  modified_by: { kind: 'varchar', length: 140 },
  docstatus: { kind: 'int' },
  idx: { kind: 'int' },
  parent: { kind: 'varchar', length: 140 },
  parentfield: { kind: 'varchar', length: 140 },
  parenttype: { kind: 'varchar', length: 140 },
  _user_tags: { kind: 'text' },
  _comments: { kind: 'text' },
  _assign: { kind: 'text' },
  _liked_by: { kind: 'text' },
};

/**
 * The columns the reference keeps on every table for its collaboration features (docs/collaboration.md
 * "Columns"): tags as `,tag,tag`, and JSON lists of assignees and of the users who liked the
 * document. Not DocFields and not part of a document as read or of `*`; a list names them to
 * select or filter them (`_assign like %user%`). Child and Single DocTypes have none.
 */
export const COLLABORATION_COLUMNS = ['_user_tags', '_comments', '_assign', '_liked_by'] as const;

/**
 * A DocType definition compiled for use: field lookups, columns and table name, computed once
 * per metadata version and shared by every request.
 */
export class Meta {
  readonly name: string;
  readonly def: DocTypeDef;
  /** `tab<DocType>` */
  readonly tableName: string;
  readonly isChild: boolean;
  readonly isSingle: boolean;
  readonly isSubmittable: boolean;
  /** Every field in definition order, layout fields included. */
  readonly fields: readonly ResolvedField[];
  /** Fields that own a column, in definition order. */
  readonly valueFields: readonly ResolvedField[];
  /** Table and Table MultiSelect fields. */
  readonly tableFields: readonly ResolvedField[];
  /** Fields above permlevel 0: the only ones field-level permissions can withhold. */
  readonly leveledFields: readonly ResolvedField[];
  /** The standard column names of this table (child columns included for child DocTypes). */
  readonly standardColumns: readonly string[];
  /** COLLABORATION_COLUMNS for a table-backed top-level DocType, else none. */
  readonly collaborationColumns: readonly string[];
  readonly #byName: ReadonlyMap<string, ResolvedField>;

  constructor(def: DocTypeDef, types: FieldTypeRegistry) {
    this.name = def.name;
    this.def = def;
    this.tableName = `tab${def.name}`;
    this.isChild = def.istable === 1;
    this.isSingle = def.issingle === 1;
    this.isSubmittable = def.is_submittable === 1;
    this.fields = def.fields.map((f) => {
      const type = types.get(f.fieldtype);
      return { def: f, type, column: type.column(f) };
    });
    this.valueFields = this.fields.filter((f) => f.column !== undefined);
    this.tableFields = this.fields.filter((f) => f.type.isTable === true);
    this.leveledFields = this.fields.filter((f) => (f.def.permlevel ?? 0) > 0);
    this.#byName = new Map(this.fields.map((f) => [f.def.fieldname, f]));
    this.standardColumns = this.isChild ? [...STANDARD_FIELDS, ...CHILD_FIELDS] : [...STANDARD_FIELDS];
    this.collaborationColumns = this.isChild || this.isSingle ? [] : [...COLLABORATION_COLUMNS];
  }

  /** The field named `fieldname`, or undefined (standard fields are not DocFields). */
  field(fieldname: string): ResolvedField | undefined {
    return this.#byName.get(fieldname);
  }

  /** True when `name` is a column of this table: standard, collaboration or value field. */
  hasColumn(name: string): boolean {
    return this.standardColumns.includes(name) || this.collaborationColumns.includes(name) || this.#byName.get(name)?.column !== undefined;
  }

  /** Every column name of this table in output order. */
  get columnNames(): string[] {
    return [...this.standardColumns, ...this.valueFields.map((f) => f.def.fieldname)];
  }

  /** The label used in messages: the field's label, else its fieldname. */
  label(fieldname: string): string {
    return this.#byName.get(fieldname)?.def.label || fieldname;
  }

  /** The default sort: `sort_field sort_order`, `creation desc` when unset. */
  get defaultSort(): { field: string; order: 'asc' | 'desc' } {
    const order = (this.def.sort_order ?? 'DESC').toLowerCase() === 'asc' ? 'asc' : 'desc';
    const field = this.def.sort_field && this.hasColumn(this.def.sort_field) ? this.def.sort_field : 'creation';
    return { field, order };
  }
}
