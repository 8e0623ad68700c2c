import type { DocContext } from '../../documents/doc-context.js';
import type { DocumentService } from '../../documents/document-service.js';
import { omitNulls } from '../../documents/omit-nulls.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { documentArg } from './client-args.js';
import { loadDocinfo } from './form-load-methods.js';

/*
 * How the reference's Desk saves a form (docs/api.md "Form saves"): the whole document in one
 * argument, an action naming the docstatus it should end in, and an answer that carries the saved
 * document in `docs` and its `docinfo`, with no `message`.
 */

/** The docstatus each action of `savedocs` saves with. */
const ACTION_DOCSTATUS: Readonly<Record<string, 0 | 1 | 2>> = { Save: 0, Submit: 1, Update: 1, Cancel: 2 };

/** True for the form's unsaved marker (`__islocal`), sent as 1, true or "1". */
function isLocal(value: Readonly<Record<string, unknown>>): boolean {
  const flag = value.__islocal;
  return flag === 1 || flag === true || flag === '1';
}

/**
 * The document as the service takes it: the form's own keys (`__islocal`, `__unsaved`, `__last_sync_on`,
 * ...) left out, and the temporary names of unsaved rows dropped so fw names them (the reference's
 * `set_local_name`). Returns the values and the form's temporary name of an unsaved document.
 */
function formValues(doc: Readonly<Record<string, unknown>>): { values: Doc; localname: string | undefined } {
  const values: Doc = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key.startsWith('__')) continue;
    values[key] = Array.isArray(value)
      ? value.map((row) => (row !== null && typeof row === 'object' && !Array.isArray(row) ? formRow(row as Doc) : row))
      : value;
  }
  let localname: string | undefined;
  if (isLocal(doc)) {
    localname = values.name === undefined || values.name === null ? undefined : String(values.name);
    delete values.name;
    const newName = doc.__newname;
    if (typeof newName === 'string' && newName !== '') values.name = newName;
  }
  return { values, localname };
}

function formRow(row: Readonly<Record<string, unknown>>): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(row)) if (!key.startsWith('__')) out[key] = value;
  if (isLocal(row)) delete out.name;
  return out;
}

/** Puts the saved document and its docinfo in the answer body, as the reference's `send_updated_docs` does. */
async function sendUpdatedDoc(call: MethodCall, doctype: string, saved: Doc, localname: string | undefined): Promise<void> {
  const { ctx, services, http } = call;
  // The caller just wrote it, but what they may read of it is decided as for any read.
  const doc = await services.documents.get(ctx, doctype, String(saved.name));
  const presented = omitNulls(doc);
  if (localname !== undefined) presented.localname = localname;
  http.extraBody.docs = [presented];
  http.extraBody.docinfo = await loadDocinfo(ctx, services.documents, doctype, doc);
}

/**
 * Saves with the docstatus of `action`: a document marked `__islocal` (or without a name) is
 * inserted, any other is updated (its `modified` must be current). Every check of an insert or
 * update applies; Submit, Update and Cancel need the submit and cancel rights as for any write.
 */
async function save(ctx: DocContext, documents: DocumentService, doctype: string, values: Doc, local: boolean, docstatus: 0 | 1 | 2): Promise<Doc> {
  const name = values.name === undefined || values.name === null || values.name === '' ? undefined : String(values.name);
  if (local || name === undefined) return documents.insert(ctx, doctype, { ...values, docstatus });
  return documents.update(ctx, doctype, name, { ...values, docstatus });
}

/** `fw.desk.form.save.savedocs(doc, action)`: the form's Save, Submit, Update (after submit) and Cancel. */
async function savedocs(call: MethodCall): Promise<undefined> {
  const { doc, doctype } = documentArg(call.args.doc);
  const action = String(call.args.action);
  const docstatus = ACTION_DOCSTATUS[action];
  if (docstatus === undefined) throw new FrappeTypeError(`action must be one of ${Object.keys(ACTION_DOCSTATUS).join(', ')}, got ${action.slice(0, 40)}`);
  const { values, localname } = formValues(doc);
  const saved = await save(call.ctx, call.services.documents, doctype, values, isLocal(doc), docstatus);
  await sendUpdatedDoc(call, doctype, saved, localname);
  return undefined;
}

/**
 * `fw.desk.form.save.cancel(doctype, name)`: cancels a submitted document and answers it in `docs`.
 * A workflow state sent along (`workflow_state_fieldname`, `workflow_state`) is saved with the
 * cancel, under the same field permissions as any write.
 */
async function cancel(call: MethodCall): Promise<undefined> {
  const { ctx, services, args } = call;
  const doctype = String(args.doctype);
  const name = String(args.name);
  const stateField = args.workflow_state_fieldname;
  const patch: Doc = { docstatus: 2 };
  if (typeof stateField === 'string' && stateField !== '' && args.workflow_state !== undefined) patch[stateField] = args.workflow_state;
  const saved = await services.documents.update(ctx, doctype, name, patch);
  await sendUpdatedDoc(call, doctype, saved, undefined);
  return undefined;
}

/** The form's save methods; both write, so POST or PUT. */
export function registerFormSaveMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.form.save.savedocs', savedocs, {
    methods: ['POST', 'PUT'],
    description: 'Saves, submits, updates after submit or cancels a whole document as the form sends it; answers `docs` and `docinfo`.',
    params: [
      { name: 'doc', type: 'object', required: true },
      { name: 'action', type: 'string', required: true },
    ],
  });
  methods.register('fw.desk.form.save.cancel', cancel, {
    methods: ['POST', 'PUT'],
    description: 'Cancels a submitted document; answers `docs` and `docinfo`.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string', required: true },
      { name: 'workflow_state_fieldname', type: 'string' },
      { name: 'workflow_state', type: 'string' },
    ],
  });
}
