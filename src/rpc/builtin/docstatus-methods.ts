import { omitNulls } from '../../documents/omit-nulls.js';
import type { Doc } from '../../meta/doctype.js';
import type { Meta } from '../../meta/meta.js';
import type { DocMethodCall } from '../doc-methods.js';
import type { HttpVerb, MethodCall, MethodRegistry } from '../method-registry.js';
import { documentArg } from './client-args.js';
import * as params from './client-params.js';

/** Reference §14: submit and cancel take POST or PUT. */
const WRITE_VERBS: readonly HttpVerb[] = ['POST', 'PUT'];

/**
 * `fw.client.submit`: the whole document (with `modified`, which must be current) saved with
 * docstatus 1; a document without a name is inserted submitted. Returns the document.
 */
async function submit({ ctx, services, args }: MethodCall): Promise<Doc> {
  const { doc, doctype, name } = documentArg(args.doc);
  if (name === undefined) return omitNulls(await services.documents.insert(ctx, doctype, { ...doc, docstatus: 1 }));
  return omitNulls(await services.documents.submit(ctx, doctype, name, doc));
}

/** `fw.client.cancel`: cancels the stored document; returns it. */
async function cancel({ ctx, services, args }: MethodCall): Promise<Doc> {
  return omitNulls(await services.documents.cancel(ctx, String(args.doctype), String(args.name)));
}

/**
 * The document method `submit`: saves the document as the method sees it (stored, overlaid with
 * the client's `docs`) with docstatus 1, and answers it, as the reference's `Document.submit` does.
 */
async function submitMethod({ ctx, services, doc }: DocMethodCall): Promise<Doc> {
  return omitNulls(await services.documents.submit(ctx, String(doc.doctype), String(doc.name), doc));
}

/** The document method `cancel`: cancels the stored document and answers it. */
async function cancelMethod({ ctx, services, doc }: DocMethodCall): Promise<Doc> {
  return omitNulls(await services.documents.cancel(ctx, String(doc.doctype), String(doc.name)));
}

/** The document method `discard`: sets the stored draft to cancelled and answers it. */
async function discardMethod({ ctx, services, doc }: DocMethodCall): Promise<Doc> {
  return omitNulls(await services.documents.discard(ctx, String(doc.doctype), String(doc.name)));
}

/**
 * Submit, cancel and discard: `fw.client.submit` and `fw.client.cancel`, and the whitelisted
 * document methods `submit`, `cancel` and `discard` of every DocType (POST, through run_doc_method
 * and `?run_method=`), which answer the saved document.
 */
export function registerDocstatusMethods(methods: MethodRegistry): void {
  methods.register('fw.client.submit', submit, { methods: WRITE_VERBS, params: params.SUBMIT, result: params.DOCUMENT_RESULT });
  methods.register('fw.client.cancel', cancel, {
    methods: WRITE_VERBS,
    params: params.DOCTYPE_AND_NAME('Cancels a submitted document.'),
    result: params.DOCUMENT_RESULT,
  });
  const submittable = (meta: Meta) => meta.isSubmittable;
  methods.registerDocMethod('*', 'submit', submitMethod, { methods: ['POST'], appliesTo: submittable, description: 'Submits the draft.' });
  methods.registerDocMethod('*', 'cancel', cancelMethod, { methods: ['POST'], appliesTo: submittable, description: 'Cancels the submitted document.' });
  methods.registerDocMethod('*', 'discard', discardMethod, {
    methods: ['POST'],
    appliesTo: submittable,
    description: 'Sets the draft to cancelled without validation.',
  });
}
