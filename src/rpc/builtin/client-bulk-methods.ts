import { bulkUpdate, type BulkUpdateResult } from '../../documents/bulk-update.js';
import { ValidationError } from '../../errors/index.js';
import type { HttpVerb, MethodCall, MethodRegistry } from '../method-registry.js';
import { insertClientDoc } from './client-write-methods.js';
import * as params from './client-params.js';

/** The most documents one insert_many call may carry (docs/api.md "Methods"). */
export const INSERT_MANY_LIMIT = 200;
const WRITE_VERBS: readonly HttpVerb[] = ['POST', 'PUT'];

/**
 * `insert_many`: inserts every document of `docs` in the request's one transaction, so one refusal
 * stores none of them. Returns one name per document sent, in order (a child row: its parent's), as
 * the reference does; a parent named twice appears twice.
 */
async function insertMany({ ctx, site, args }: MethodCall): Promise<string[]> {
  const docs = args.docs as unknown[];
  if (docs.length > INSERT_MANY_LIMIT) {
    throw new ValidationError(`Only ${INSERT_MANY_LIMIT} inserts allowed in one request (got ${docs.length})`);
  }
  const names: string[] = [];
  for (const doc of docs) names.push(String((await insertClientDoc(ctx, site.documents, doc)).name));
  return names;
}

/** `bulk_update`: saves each `{doctype, docname, ...fields}`; refusals come back in `failed_docs`. */
async function bulkUpdateMethod({ ctx, site, args }: MethodCall): Promise<BulkUpdateResult> {
  return bulkUpdate(ctx, site.documents, args.docs as unknown[]);
}

/** The many-document writes of `fw.client`: insert_many, bulk_update. */
export function registerClientBulkMethods(methods: MethodRegistry): void {
  methods.register('fw.client.insert_many', insertMany, { methods: WRITE_VERBS, params: params.INSERT_MANY, result: params.RESULTS.names });
  methods.register('fw.client.bulk_update', bulkUpdateMethod, { methods: WRITE_VERBS, params: params.BULK_UPDATE, result: params.RESULTS.bulkUpdate });
}
