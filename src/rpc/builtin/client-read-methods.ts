import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import { getDocumentValues } from '../../documents/lists/document-values.js';
import { getDocumentBy } from '../../documents/lists/find-document.js';
import { countDocuments, listDocuments } from '../../documents/lists/list-documents.js';
import { omitNulls } from '../../documents/omit-nulls.js';
import { getSingleValue as readSingleValue } from '../../documents/singles/single-values.js';
import { DataError, DoesNotExistError } from '../../errors/index.js';
import { PERMISSION_TYPES, type Doc, type PermissionType } from '../../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { fieldnameArg, filterArg, pick } from './client-args.js';
import * as params from './client-params.js';

/** The parameters get_list takes (docs/api.md "Methods"); others, such as frappe-ui's `start` and `limit`, are ignored. */
const LIST_PARAMS = ['fields', 'filters', 'or_filters', 'group_by', 'order_by', 'limit_start', 'limit_page_length', 'parent', 'as_dict'];

/** `get_list`: the rows of a DocType by list parameters, as `GET /api/resource/<doctype>` answers them. */
async function getList({ ctx, args }: MethodCall): Promise<unknown[]> {
  return (await listDocuments(ctx, await listQueryAfterAccess(ctx, String(args.doctype), pick(args, LIST_PARAMS)))).rows;
}

/** `get_count`: how many documents match `filters` among those the caller may see. */
async function getCount({ ctx, args }: MethodCall): Promise<number> {
  return countDocuments(ctx, await listQueryAfterAccess(ctx, String(args.doctype), pick(args, ['filters', 'or_filters', 'parent'])));
}

/**
 * `get`: one document by name, or the first one matching `filters` (`{}` matches any). A Single
 * takes neither (its one document; a name other than its own is 404, filters are ignored).
 */
async function getDoc({ ctx, services, args }: MethodCall): Promise<Doc> {
  const named = args.name !== undefined && args.name !== '';
  const target = named ? { name: String(args.name) } : filterArg(args.filters);
  return omitNulls(await getDocumentBy(ctx, services.documents, String(args.doctype), target, args.parent as string | undefined));
}

/** `get_value`: some fields of the first matching document; see getDocumentValues for the shapes. */
async function getValue({ ctx, services, args }: MethodCall): Promise<unknown> {
  const fields = fieldnameArg(args.fieldname);
  const target = filterArg(args.filters);
  const filters = target === undefined ? undefined : 'name' in target ? { name: target.name } : target.filters;
  return getDocumentValues(ctx, services.documents, String(args.doctype), fields, filters, {
    asDict: args.as_dict !== false,
    parent: args.parent as string | undefined,
  });
}

/** `get_single_value`: one value of a Single DocType, empty ones cast as the reference does (417 for a DocType that is not one). */
async function getSingleValue({ ctx, services, args }: MethodCall): Promise<unknown> {
  return readSingleValue(ctx, services.documents, String(args.doctype), String(args.field));
}

/**
 * `has_permission`: whether the caller holds `perm_type` on a document. A missing document is 404
 * only for callers who may read the DocType; to others it is simply not permitted, so the answer
 * never reveals which names exist.
 */
async function hasPermissionMethod({ ctx, services, args }: MethodCall): Promise<{ has_permission: boolean }> {
  const meta = ctx.metas.get(String(args.doctype));
  const right = String(args.perm_type ?? 'read').toLowerCase();
  if (!(PERMISSION_TYPES as readonly string[]).includes(right)) {
    throw new DataError(`Unknown permission type ${right}: use one of ${PERMISSION_TYPES.join(', ')}`);
  }
  const name = String(args.docname);
  const doc = await services.documents.load(ctx, meta.name, name);
  if (!doc) {
    if (!(await services.documents.can(ctx, meta, 'read'))) return { has_permission: false };
    throw new DoesNotExistError(`${meta.name} ${name} not found`, { doctype: meta.name });
  }
  return { has_permission: await services.documents.can(ctx, meta, right as PermissionType, doc) };
}

/** The read side of `fw.client`: get_list, get_count, get, get_value, get_single_value, has_permission. */
export function registerClientReadMethods(methods: MethodRegistry): void {
  methods.register('fw.client.get_list', getList, { params: params.GET_LIST, result: params.RESULTS.getList });
  methods.register('fw.client.get_count', getCount, { params: params.GET_COUNT, result: params.RESULTS.getCount });
  methods.register('fw.client.get', getDoc, { params: params.GET, result: params.DOCUMENT_RESULT });
  methods.register('fw.client.get_value', getValue, { params: params.GET_VALUE });
  methods.register('fw.client.get_single_value', getSingleValue, { params: params.GET_SINGLE_VALUE });
  methods.register('fw.client.has_permission', hasPermissionMethod, { params: params.HAS_PERMISSION, result: params.RESULTS.hasPermission });
}
