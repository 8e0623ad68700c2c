import { deleteChildRow, insertChildRow, updateChildRow } from '../../documents/child-row-operations.js';
import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { omitNulls } from '../../documents/omit-nulls.js';
import { renameDocument } from '../../documents/rename-document.js';
import { FrappeTypeError, ValidationError } from '../../errors/index.js';
import { CHILD_FIELDS, STANDARD_FIELDS, type Doc } from '../../meta/doctype.js';
import type { HttpVerb, MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject, documentArg } from './client-args.js';
import * as params from './client-params.js';

/** Reference §14: the state-changing fw.client methods take POST or PUT. */
const WRITE_VERBS: readonly HttpVerb[] = ['POST', 'PUT'];
/** Fields `set_value` may not set by name (reference: "Cannot edit standard fields"). */
const STANDARD = new Set<string>([...STANDARD_FIELDS, ...CHILD_FIELDS, 'doctype']);

/**
 * Inserts one document given with its `doctype` inside (reference `insert_doc`): a child row goes
 * into its parent's table and the parent is saved and returned. Shared with insert_many.
 */
export async function insertClientDoc(ctx: DocContext, service: DocumentService, raw: unknown): Promise<Doc> {
  const { doc, doctype } = documentArg(raw);
  const meta = ctx.metas.get(doctype);
  if (meta.isChild) return insertChildRow(ctx, service, doc);
  return service.insert(ctx, doctype, doc);
}

/**
 * `set_value`: `fieldname` names one field and `value` its value (absent: cleared); or
 * `fieldname` is a dict (or its JSON) of fields and `value` is not used. The dict form may carry `modified`, which then
 * must match (frappe-ui saves whole documents this way). Returns the whole document.
 */
async function setValue({ ctx, services, args }: MethodCall): Promise<Doc> {
  const doctype = String(args.doctype);
  const name = String(args.name);
  let values: Doc;
  const fieldname = args.fieldname;
  const dict = typeof fieldname === 'string' ? parseDict(fieldname) : fieldname;
  if (dict !== undefined) {
    values = asObject(dict, 'fieldname');
  } else if (typeof fieldname === 'string') {
    if (STANDARD.has(fieldname)) throw new ValidationError(`Cannot edit standard fields: ${fieldname}`, { doctype });
    values = { [fieldname]: args.value ?? null };
  } else {
    throw new FrappeTypeError('Argument fieldname must be a field name, or a dict of fields when value is absent');
  }
  const meta = ctx.metas.get(doctype);
  const doc = meta.isChild ? await updateChildRow(ctx, services.documents, doctype, name, values) : await services.documents.update(ctx, doctype, name, values);
  return omitNulls(doc);
}

/** A `fieldname` string holding a JSON object, else undefined (it is a plain field name). */
function parseDict(text: string): unknown {
  if (!/^\s*\{/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new FrappeTypeError(`Argument fieldname is not valid JSON: ${text.slice(0, 80)}`);
  }
}

/** `insert`: a new document from `doc` (which names its doctype); returns it as stored. */
async function insert({ ctx, services, args }: MethodCall): Promise<Doc> {
  return omitNulls(await insertClientDoc(ctx, services.documents, args.doc));
}

/**
 * `save`: the whole document, as read earlier (so `modified` is checked); a document without a
 * name is inserted, as the reference's `Document.save` does.
 */
async function save({ ctx, services, args }: MethodCall): Promise<Doc> {
  const { doc, doctype, name } = documentArg(args.doc);
  // Without a name it is inserted (a Single's one document: saved).
  if (name === undefined) return omitNulls(await services.documents.insert(ctx, doctype, doc));
  return omitNulls(await services.documents.update(ctx, doctype, name, doc));
}

/** `delete`: deletes a document (or a child row, saving its parent); answers nothing, so the body is `{}`. */
async function deleteDoc({ ctx, services, args }: MethodCall): Promise<undefined> {
  const doctype = String(args.doctype);
  const meta = ctx.metas.get(doctype);
  if (meta.isChild) await deleteChildRow(ctx, services.documents, doctype, String(args.name));
  else await services.documents.delete(ctx, doctype, String(args.name));
  return undefined;
}

/** `rename_doc`: renames a document and everything pointing at it; returns the new name. */
async function renameDoc({ ctx, services, args }: MethodCall): Promise<string> {
  return renameDocument(ctx, services.documents, String(args.doctype), String(args.old_name), String(args.new_name), {
    merge: args.merge === true,
  });
}

/** The single-document writes of `fw.client`: set_value, insert, save, delete, rename_doc. */
export function registerClientWriteMethods(methods: MethodRegistry): void {
  methods.register('fw.client.set_value', setValue, {
    methods: WRITE_VERBS,
    params: params.SET_VALUE,
    result: params.DOCUMENT_RESULT,
  });
  methods.register('fw.client.insert', insert, { methods: WRITE_VERBS, params: params.INSERT, result: params.DOCUMENT_RESULT });
  methods.register('fw.client.save', save, { methods: WRITE_VERBS, params: params.SAVE, result: params.DOCUMENT_RESULT });
  methods.register('fw.client.delete', deleteDoc, { methods: ['DELETE', 'POST'], params: params.DOCTYPE_AND_NAME('Deletes a document.') });
  methods.register('fw.client.rename_doc', renameDoc, {
    methods: WRITE_VERBS,
    params: params.RENAME_DOC,
    result: params.RESULTS.newName,
  });
}
