import type { Meta } from '../meta/meta.js';
import { isWithheld } from '../permissions/field-level.js';
import type { ComponentNames } from './component-names.js';
import { fieldSchema, STAMP_PATTERN } from './field-schema.js';
import type { JsonSchema } from './json-schema.js';

/** The permlevels whose fields the caller may read and write (docs/api.md "Permissions in brief"). */
export interface FieldLevels {
  readonly read: ReadonlySet<number>;
  readonly write: ReadonlySet<number>;
}

const USER = { type: 'string', maxLength: 140 };
const STAMP = { type: 'string', pattern: STAMP_PATTERN, readOnly: true, 'x-fw-format': 'datetime' };

/** The standard fields of every document as fw sends them (docs/api.md "Documents"). */
function standardProperties(meta: Meta): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {
    name: { type: 'string', maxLength: 140, description: 'The document name; always a string.' },
    owner: { ...USER, readOnly: true, 'x-fw-link': 'User' },
    creation: STAMP,
    modified: { ...STAMP, description: 'Send it back unchanged on update for the concurrency check.' },
    modified_by: { ...USER, readOnly: true, 'x-fw-link': 'User' },
    docstatus: { type: 'integer', enum: [0, 1, 2], description: '0 Draft, 1 Submitted, 2 Cancelled.' },
    idx: { type: 'integer', readOnly: true },
  };
  if (meta.isChild) {
    props.parent = { type: 'string', maxLength: 140, readOnly: true };
    props.parentfield = { type: 'string', maxLength: 140, readOnly: true };
    props.parenttype = { type: 'string', maxLength: 140, readOnly: true, 'x-fw-link': 'DocType' };
  }
  return props;
}

function base(meta: Meta, title: string): JsonSchema {
  const schema: JsonSchema = { type: 'object', title, 'x-fw-doctype': meta.name };
  if (meta.def.description) schema.description = meta.def.description;
  if (meta.isSubmittable) schema['x-fw-submittable'] = true;
  return schema;
}

/**
 * The component schemas of one DocType for a caller (docs/openapi.md "Schemas"): `<Name>` (a document
 * as read), `<Name>Create` (required fields on create only), `<Name>Update` (everything optional),
 * and for DocTypes that are listed, `<Name>ListRow`. Fields above the caller's permlevels are left
 * out: unreadable ones from what is read, unwritable ones from what is written (fw drops them).
 */
export function doctypeSchemas(meta: Meta, levels: FieldLevels, names: ComponentNames): Record<string, JsonSchema> {
  const name = names.of(meta.name);
  // A table whose child DocType is missing (an app's broken definition) still gets a schema: any document.
  const child = (doctype: string) => (names.has(doctype) ? names.of(doctype) : 'FwDocument');
  const childCreate = (doctype: string) => (names.has(doctype) ? `${names.of(doctype)}Create` : 'FwDocumentInput');
  const childUpdate = (doctype: string) => (names.has(doctype) ? `${names.of(doctype)}Update` : 'FwDocumentInput');

  const readProps: Record<string, JsonSchema> = standardProperties(meta);
  const createProps: Record<string, JsonSchema> = {
    name: { type: 'string', maxLength: 140, description: 'Kept only for `prompt` and `UUID` naming on v1; always kept on v2.' },
  };
  const updateProps: Record<string, JsonSchema> = {
    modified: { type: 'string', description: 'The `modified` last read: a different stored value is 417 TimestampMismatchError.' },
  };
  if (meta.isSubmittable) {
    createProps.docstatus = { type: 'integer', enum: [0, 1], description: '1 inserts the document submitted.' };
    updateProps.docstatus = { type: 'integer', enum: [0, 1, 2], description: '1 submits, 2 cancels.' };
  }
  if (meta.isChild) {
    createProps.idx = { type: 'integer' };
    updateProps.name = { type: 'string', maxLength: 140, description: 'An existing row is kept by its name.' };
    updateProps.idx = { type: 'integer' };
  }
  const required: string[] = [];
  for (const field of meta.fields) {
    const def = field.def;
    if (!isWithheld(def, levels.read)) {
      const read = fieldSchema(field, 'read', child);
      if (read) readProps[def.fieldname] = read;
    }
    if (isWithheld(def, levels.write)) continue;
    const mandatory = def.reqd === 1 && !def.default && !def.fetch_from;
    const create = fieldSchema(field, 'write', childCreate, { nonNull: mandatory });
    if (!create) continue;
    createProps[def.fieldname] = create;
    if (mandatory) required.push(def.fieldname);
    const update = fieldSchema(field, 'write', childUpdate);
    if (update) updateProps[def.fieldname] = update;
  }
  readProps.doctype = { type: 'string', const: meta.name };

  const schemas: Record<string, JsonSchema> = {
    [name]: {
      ...base(meta, meta.name),
      properties: readProps,
      required: readRequired(meta),
      additionalProperties: false,
    },
    [`${name}Create`]: { ...base(meta, `${meta.name} (create)`), properties: createProps, ...(required.length ? { required } : {}) },
    [`${name}Update`]: { ...base(meta, `${meta.name} (update)`), properties: updateProps },
  };
  if (!meta.isChild && !meta.isSingle) {
    // A list row holds the columns asked for, under aliases too, and aggregates: every property is optional.
    const rowProps: Record<string, JsonSchema> = { ...readProps };
    delete rowProps.doctype;
    schemas[`${name}ListRow`] = { ...base(meta, `${meta.name} (list row)`), properties: rowProps, additionalProperties: true };
  }
  return schemas;
}

/** The fields every document body carries; a Single has no owner or stamps until it is first saved. */
function readRequired(meta: Meta): string[] {
  if (meta.isSingle) return ['name', 'doctype', 'docstatus', 'idx'];
  const required = ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'idx', 'doctype'];
  return meta.isChild ? [...required, 'parent', 'parentfield', 'parenttype'] : required;
}
