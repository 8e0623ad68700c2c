import type { MaybePromise } from '../../async/maybe-promise.js';
import { FwError } from '../../errors/index.js';
import type { ListQuery } from '../../query/list-query.js';
import { assertBoundedArgs } from '../../query/list-limits.js';
import { listQueryOf, type ListParamsOptions } from '../../query/parse-list-params.js';
import type { DocContext } from '../doc-context.js';
import { ownScope } from './list-documents.js';

/**
 * The query of a list request's arguments, for the list layer (docs/api.md "Lists"). The reference
 * tells a caller who may not list the DocType so before it finds fault with the arguments: a
 * parameter error is thrown only once the checks that need no query passed (absurd arguments are
 * refused first of all, before anything walks them or touches the database).
 */
export function listQueryAfterAccess(
  ctx: DocContext,
  doctype: string,
  raw: Readonly<Record<string, unknown>>,
  opts: Omit<ListParamsOptions, 'doctype'> = {},
): MaybePromise<ListQuery> {
  assertBoundedArgs(raw);
  try {
    return listQueryOf(raw, { ...opts, doctype });
  } catch (err) {
    if (!(err instanceof FwError)) throw err;
    return refusedAfterAccess(ctx, doctype, raw, err);
  }
}

/** Throws the access error of the list, if any, and else the parameter error `err`. */
async function refusedAfterAccess(ctx: DocContext, doctype: string, raw: Readonly<Record<string, unknown>>, err: FwError): Promise<never> {
  await ownScope(ctx, ctx.metas.get(doctype), raw.parent);
  throw err;
}
