import { docMethodArgs, invokeDocMethod } from '../doc-methods.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject, requiredString } from './client-args.js';

/**
 * `run_doc_method` (used by frappe-ui): runs a whitelisted document method on `dt`/`dn` (dn
 * defaults to dt, for Singles) or on the client's copy `docs`, whose `modified` must be current.
 * Answers `{"message": <return>, "docs": [<document>]}`; read permission on the document suffices,
 * as in the reference, and the method's own verbs apply.
 */
async function runDocMethod({ ctx, site, args, http }: MethodCall): Promise<unknown> {
  let doctype: string;
  let name: string;
  let clientDoc: Record<string, unknown> | undefined;
  if (typeof args.dt === 'string' && args.dt !== '') {
    doctype = args.dt;
    name = typeof args.dn === 'string' && args.dn !== '' ? args.dn : args.dt;
  } else if (args.docs !== undefined) {
    clientDoc = asObject(args.docs, 'docs');
    doctype = requiredString(clientDoc, 'doctype', 'docs');
    name = requiredString(clientDoc, 'name', 'docs');
  } else {
    throw new FrappeTypeError('Pass dt and dn, or docs');
  }
  const outcome = await invokeDocMethod({
    ctx,
    site,
    http,
    doctype,
    name,
    method: String(args.method),
    args: docMethodArgs(args.args),
    right: 'read',
    clientDoc,
  });
  http.extraBody.docs = [outcome.doc];
  return outcome.result;
}

/** Document methods over RPC: `run_doc_method`. */
export function registerClientDocMethods(methods: MethodRegistry): void {
  methods.register('run_doc_method', runDocMethod, {
    params: [
      { name: 'method', type: 'string', required: true },
      { name: 'dt', type: 'string' },
      { name: 'dn', type: 'string' },
      { name: 'docs', type: 'object' },
      { name: 'args', type: 'any' },
    ],
  });
}
