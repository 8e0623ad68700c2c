import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import type { DocContext } from '../documents/doc-context.js';
import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { ListOptions } from '../documents/lists/list-documents.js';
import type { ListQuery } from '../query/list-query.js';
import type { PagingNames } from '../query/parse-list-params.js';
import type { ApiVersion } from './presentation.js';

/** API v2 pages with `start` and `limit` (docs/api.md "API v2"); v1 keeps the reference's names. */
const V2_PAGING: PagingNames = { start: 'start', pageLength: ['limit'] };

/**
 * A list request of one API version read into the version-free query and options of the list
 * layer: v2 pages with `start`/`limit`, sorts newest first unless told otherwise, and says
 * whether a next page exists (docs/api.md "API v2").
 */
export function listRequest(
  ctx: DocContext,
  doctype: string,
  raw: Readonly<Record<string, unknown>>,
  version: ApiVersion,
): MaybePromise<{ query: ListQuery; options: ListOptions }> {
  if (version === 'v1') return andThen(listQueryAfterAccess(ctx, doctype, raw), (query) => ({ query, options: V1_OPTIONS }));
  return andThen(listQueryAfterAccess(ctx, doctype, raw, { paging: V2_PAGING }), (query) => ({ query, options: V2_OPTIONS }));
}

const V1_OPTIONS: ListOptions = {};
const V2_OPTIONS: ListOptions = { nextPage: true, defaultDirection: 'desc' };
