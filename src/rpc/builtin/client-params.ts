import type { JsonSchema, ParamsSchema } from '../method-params.js';

/*
 * The parameters of the fw.client methods and login as JSON Schema (docs/openapi.md "Method
 * parameters"): one declaration validates calls, describes them in /api/openapi.json and answers
 * /api/v2/discovery. The wording follows docs/api.md "Methods".
 */

const DOCTYPE: JsonSchema = { type: 'string', minLength: 1, description: 'The DocType.' };
const NAME: JsonSchema = { type: 'string', minLength: 1, description: 'The document name.' };
const PARENT: JsonSchema = { type: 'string', description: 'For a child DocType: its parent DocType, whose permissions apply.' };
const DOC: JsonSchema = { type: 'object', description: 'The document, with its `doctype`.' };
/** JSON arrives as a value or as JSON text; text that does not parse is passed on as text. */
const FILTERS: JsonSchema = {
  anyOf: [{ type: 'array' }, { type: 'object' }, { type: 'string' }],
  description: '`[[field, op, value], …]`, `{field: value}` (docs/api.md "Lists"); JSON text too.',
};
/** A document name or filters, taken as sent: client-args.ts tells them apart, so `"3E002"` stays a name. */
const NAME_OR_FILTERS: JsonSchema = {
  type: ['string', 'number', 'array', 'object'],
  description: 'A document name, or filters as `[[field, op, value], …]` or `{field: value}`; JSON text too.',
};
const PAGING: JsonSchema = { type: ['number', 'string'], description: 'A non-negative integer (a bad value is 417 DataError).' };

function schema(properties: Record<string, JsonSchema>, required: readonly string[], description: string): ParamsSchema {
  return { type: 'object', properties, required, description };
}

/** `fw.client.get_list`. */
export const GET_LIST = schema(
  {
    doctype: DOCTYPE,
    fields: { anyOf: [{ type: 'array' }, { type: 'string' }], description: 'Columns: a list, or `"*"` (docs/api.md "Lists").' },
    filters: FILTERS,
    or_filters: FILTERS,
    group_by: { type: 'string' },
    order_by: { type: 'string', description: '`field [asc|desc], …`' },
    parent: PARENT,
    as_dict: { type: 'boolean', description: 'False: rows as arrays.' },
    limit_start: PAGING,
    limit_page_length: PAGING,
  },
  ['doctype'],
  'Rows of a DocType the caller may read.',
);

/** `fw.client.get_count`. */
export const GET_COUNT = schema(
  { doctype: DOCTYPE, filters: FILTERS, or_filters: FILTERS, parent: PARENT },
  ['doctype'],
  'The number of documents matching the filters that the caller may read.',
);

/** `fw.client.get`. */
export const GET = schema(
  { doctype: DOCTYPE, name: NAME, filters: { ...NAME_OR_FILTERS, description: 'Instead of `name`: a name, or filters (the first match).' }, parent: PARENT },
  ['doctype'],
  'One document, by name or by filters.',
);

/** `fw.client.get_value`. */
export const GET_VALUE = schema(
  {
    doctype: DOCTYPE,
    fieldname: { type: ['string', 'array', 'object'], description: 'A field, a list of fields, or a dict; JSON text too.' },
    filters: NAME_OR_FILTERS,
    as_dict: { type: 'boolean' },
    parent: PARENT,
  },
  ['doctype', 'fieldname'],
  'Field values of the first matching document.',
);

/** `fw.client.get_single_value`. */
export const GET_SINGLE_VALUE = schema({ doctype: DOCTYPE, field: { type: 'string', minLength: 1 } }, ['doctype', 'field'], 'One value of a Single DocType.');

/** `fw.client.has_permission`. */
export const HAS_PERMISSION = schema(
  { doctype: DOCTYPE, docname: NAME, perm_type: { type: 'string', default: 'read', description: 'A right: read, write, create, delete, submit, …' } },
  ['doctype', 'docname'],
  'Whether the caller holds a right on a document: `{"has_permission": true|false}`.',
);

/** `fw.client.set_value`. */
export const SET_VALUE = schema(
  {
    doctype: DOCTYPE,
    name: NAME,
    fieldname: { type: ['string', 'object'], description: 'A field, or a dict of fields and values; JSON text too.' },
    value: { description: 'The value, when `fieldname` is a field.' },
  },
  ['doctype', 'name', 'fieldname'],
  'Sets fields of a document and saves it.',
);

/** `fw.client.insert`. */
export const INSERT = schema({ doc: DOC }, ['doc'], 'Inserts a document (a child row: with parenttype, parent, parentfield).');
/** `fw.client.save`. */
export const SAVE = schema({ doc: DOC }, ['doc'], 'Saves a document as read (with `modified`); inserts it when it has no name.');
/** `fw.client.submit`. */
export const SUBMIT = schema({ doc: DOC }, ['doc'], 'Submits a document (inserting it submitted when it has no name).');
/** `doctype` and `name` (`fw.client.delete`, `fw.client.cancel`). */
export const DOCTYPE_AND_NAME = (description: string) => schema({ doctype: DOCTYPE, name: NAME }, ['doctype', 'name'], description);

/** `fw.client.rename_doc`. */
export const RENAME_DOC = schema(
  { doctype: DOCTYPE, old_name: NAME, new_name: NAME, merge: { type: 'boolean', description: 'Refused: fw does not merge.' } },
  ['doctype', 'old_name', 'new_name'],
  'Renames a document; links, child rows, attachments and history follow.',
);

/** `fw.client.insert_many`. */
export const INSERT_MANY = schema(
  { docs: { type: 'array', description: 'At most 200 documents (more is 417 ValidationError), each with its doctype.' } },
  ['docs'],
  'Inserts documents in one transaction and answers their names; one refusal stores none.',
);

/** `fw.client.bulk_update`. */
export const BULK_UPDATE = schema(
  { docs: { type: 'array', description: '`[{doctype, docname, ...fields}]`; an item that is not one is reported in `failed_docs`.' } },
  ['docs'],
  'Updates documents, each on its own: `{"failed_docs": [{doc, exc}]}`.',
);

/** `login`. */
export const LOGIN = schema(
  {
    usr: { type: 'string', description: 'The user name or email.' },
    pwd: { type: 'string', format: 'password', description: 'The password.' },
    otp: { type: 'string', format: 'password', description: 'Second step of a two-factor login: the code, or a recovery code.' },
    tmp_id: { type: 'string', description: 'Second step of a two-factor login: the `tmp_id` the first step answered.' },
  },
  [],
  'Signs in and sets the `sid` cookie: "Logged In" (System Users) or "No App" (Website Users). When two-factor login applies, a right password answers "Verification code required" with `verification` and `tmp_id` instead, and a second call sends `otp` and `tmp_id` (docs/identity.md "Two-factor login").',
);

/*
 * What the methods return (the `result` option): the `message` of v1 answers, the `data` of v2.
 * Standalone schemas (no references), as /api/v2/discovery/method/<path> shows them on their own.
 */

/** A document as the fw.client methods answer it (v1 presentation: null fields left out). */
export const DOCUMENT_RESULT: JsonSchema = {
  type: 'object',
  required: ['name', 'doctype'],
  properties: { name: { type: 'string' }, doctype: { type: 'string' } },
  additionalProperties: true,
  description: 'The document: standard fields, fields, child tables.',
};

/** What the methods above return, by method. */
export const RESULTS = {
  getList: { type: 'array', items: { anyOf: [{ type: 'object' }, { type: 'array' }] }, description: 'Rows: objects, or arrays with `as_dict` false.' },
  getCount: { type: 'integer', minimum: 0 },
  hasPermission: {
    type: 'object',
    required: ['has_permission'],
    properties: { has_permission: { type: 'boolean' } },
    additionalProperties: false,
  },
  names: { type: 'array', items: { type: 'string' }, description: 'The names, in the order sent.' },
  newName: { type: 'string', description: 'The new name.' },
  bulkUpdate: {
    type: 'object',
    required: ['failed_docs'],
    properties: { failed_docs: { type: 'array', items: { type: 'object', properties: { doc: {}, exc: { type: 'string' } } } } },
  },
  login: { type: 'string', enum: ['Logged In', 'No App', 'Verification code required'] },
} satisfies Record<string, JsonSchema>;
