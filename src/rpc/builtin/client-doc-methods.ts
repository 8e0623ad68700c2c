import { docMethodArgs, invokeDocMethod, type DocMethodRegistry } from '../doc-methods.js';
import { omitNulls } from '../../documents/omit-nulls.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject, requiredString } from './client-args.js';

/** The document, method arguments and right of one run_doc_method call, in either of its forms. */
interface DocMethodRequest {
  readonly doctype: string;
  readonly name: string;
  readonly clientDoc?: Record<string, unknown>;
  readonly args: Record<string, unknown>;
  readonly right: 'read' | 'write';
}

/**
 * v1's form: `dt`/`dn` (dn defaults to dt, for Singles) or the client's copy `docs`, arguments in
 * `args`; read permission suffices, as in the reference. v2's form: the client's copy `document`
 * and the arguments in `kwargs`; GET needs read permission, any other verb write permission.
 */
function docMethodRequest({ args, http }: MethodCall): DocMethodRequest {
  if (args.document !== undefined && args.document !== null && args.document !== '') {
    const clientDoc = asObject(args.document, 'document');
    const kwargs = args.kwargs === undefined || args.kwargs === null || args.kwargs === '' ? {} : asObject(args.kwargs, 'kwargs');
    return {
      doctype: requiredString(clientDoc, 'doctype', 'document'),
      name: requiredString(clientDoc, 'name', 'document'),
      clientDoc,
      args: { ...kwargs },
      right: http.verb === 'GET' ? 'read' : 'write',
    };
  }
  if (typeof args.dt === 'string' && args.dt !== '') {
    const name = typeof args.dn === 'string' && args.dn !== '' ? args.dn : args.dt;
    return { doctype: args.dt, name, args: docMethodArgs(args.args), right: 'read' };
  }
  if (args.docs !== undefined) {
    const clientDoc = asObject(args.docs, 'docs');
    return {
      doctype: requiredString(clientDoc, 'doctype', 'docs'),
      name: requiredString(clientDoc, 'name', 'docs'),
      clientDoc,
      args: docMethodArgs(args.args),
      right: 'read',
    };
  }
  throw new FrappeTypeError('Pass dt and dn, docs, or document');
}

/**
 * `run_doc_method` (used by frappe-ui): runs a whitelisted document method, on the stored document
 * or on the client's copy, whose `modified` must be current. Answers `{"message": <return>,
 * "docs": [<document>]}` (v2: `data` and `docs`); the method's own verbs apply.
 */
async function runDocMethod(call: MethodCall, docMethods: DocMethodRegistry): Promise<unknown> {
  const { ctx, services, http } = call;
  const request = docMethodRequest(call);
  const outcome = await invokeDocMethod({
    ctx,
    services,
    docMethods,
    http,
    doctype: request.doctype,
    name: request.name,
    method: String(call.args.method),
    args: request.args,
    right: request.right,
    clientDoc: request.clientDoc,
  });
  http.extraBody.docs = [http.apiVersion === 'v2' ? outcome.doc : omitNulls(outcome.doc)];
  return outcome.result;
}

/** Document methods over RPC: `run_doc_method`. */
export function registerClientDocMethods(methods: MethodRegistry): void {
  methods.register('run_doc_method', (call) => runDocMethod(call, methods.docMethods), {
    params: [
      { name: 'method', type: 'string', required: true },
      { name: 'dt', type: 'string' },
      { name: 'dn', type: 'string' },
      { name: 'docs', type: 'object' },
      { name: 'document', type: 'object' },
      { name: 'kwargs', type: 'object' },
      { name: 'args', type: 'any' },
    ],
  });
}
