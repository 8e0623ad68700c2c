import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import { countDocuments, planList, runList } from '../../documents/lists/list-documents.js';
import type { MethodCall, MethodRegistry, ParamSpec } from '../method-registry.js';
import { pick } from './client-args.js';

/**
 * The desk's list parameters as get_list's (reference `frappe.desk.reportview`): `start` and
 * `page_length` page, the rest is the same. `limit_start` / `limit_page_length` are taken too.
 */
function listArgs(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = pick(args, ['fields', 'filters', 'or_filters', 'order_by', 'group_by', 'parent', 'limit_start', 'limit_page_length']);
  if (args.start !== undefined && out.limit_start === undefined) out.limit_start = args.start;
  if (args.page_length !== undefined && out.limit_page_length === undefined) out.limit_page_length = args.page_length;
  return out;
}

/**
 * `fw.desk.reportview.get` (list views): the compressed form `{keys, values, user_info}`, one key
 * per column and one array of values per row, so a long list does not repeat its keys.
 */
async function reportviewGet({ ctx, args }: MethodCall): Promise<{ keys: string[]; values: unknown[]; user_info: object }> {
  const doctype = String(args.doctype);
  const plan = await planList(ctx, await listQueryAfterAccess(ctx, doctype, { ...listArgs(args), as_dict: false }));
  const { rows } = await runList(ctx, plan);
  return { keys: plan.columns.map((c) => c.key), values: rows, user_info: {} };
}

/** `fw.desk.reportview.get_count`: how many documents match, under the same rules as get_count. */
async function reportviewCount({ ctx, args }: MethodCall): Promise<number> {
  return countDocuments(ctx, await listQueryAfterAccess(ctx, String(args.doctype), pick(args, ['filters', 'or_filters', 'parent'])));
}

const DOCTYPE: ParamSpec = { name: 'doctype', type: 'string', required: true };

/** The desk's list view methods: reportview.get and reportview.get_count. */
export function registerDeskReportviewMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.reportview.get', reportviewGet, {
    params: [
      DOCTYPE,
      { name: 'fields', type: 'json' },
      { name: 'filters', type: 'json' },
      { name: 'or_filters', type: 'json' },
      { name: 'order_by', type: 'string' },
      { name: 'group_by', type: 'string' },
      { name: 'parent', type: 'string' },
      { name: 'start', type: 'any' },
      { name: 'page_length', type: 'any' },
      { name: 'limit_start', type: 'any' },
      { name: 'limit_page_length', type: 'any' },
    ],
  });
  methods.register('fw.desk.reportview.get_count', reportviewCount, {
    params: [DOCTYPE, { name: 'filters', type: 'json' }, { name: 'or_filters', type: 'json' }, { name: 'parent', type: 'string' }],
  });
}
