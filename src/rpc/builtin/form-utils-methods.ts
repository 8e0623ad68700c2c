import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';

/**
 * `fw.desk.form.utils.get_next(doctype, value, prev, filters, sort_order, sort_field)`: the name of
 * the document after `value` in the list order (`prev` truthy: before it), among those the caller
 * may list and matching `filters`; null with a "No further records" message at either end
 * (docs/collaboration.md "Previous and next"). `value` must be a document the caller may read.
 */
async function getNext({ ctx, services, args }: MethodCall): Promise<string | null> {
  const doctype = String(args.doctype);
  const sortField = typeof args.sort_field === 'string' && args.sort_field !== '' ? args.sort_field : 'creation';
  const sortOrder = typeof args.sort_order === 'string' && args.sort_order !== '' ? args.sort_order.toLowerCase() : 'desc';
  if (sortOrder !== 'asc' && sortOrder !== 'desc') throw new FrappeTypeError('sort_order must be asc or desc');
  const meta = ctx.metas.get(doctype);
  if (!meta.hasColumn(sortField)) throw new FrappeTypeError(`sort_field ${sortField.slice(0, 60)} is not a column of ${doctype}`);
  const current = await services.documents.get(ctx, doctype, String(args.value));
  const prev = args.prev === true || args.prev === 1 || args.prev === '1' || args.prev === 'true';
  // Walking forward in a descending list means smaller values; backwards flips both.
  const forwardOp = sortOrder === 'asc' ? '>' : '<';
  const op = prev ? (forwardOp === '>' ? '<' : '>') : forwardOp;
  const order = prev ? (sortOrder === 'asc' ? 'desc' : 'asc') : sortOrder;
  const given = args.filters === undefined || args.filters === null || args.filters === '' ? [] : args.filters;
  if (typeof given !== 'object') throw new FrappeTypeError('filters must be a list or an object');
  const filters = Array.isArray(given)
    ? [...given]
    : Object.entries(given as Record<string, unknown>).map(([k, v]) => (Array.isArray(v) ? [k, ...v] : [k, '=', v]));
  filters.push([sortField, op, current[sortField] ?? null]);
  const { rows } = await listDocuments(
    ctx,
    await listQueryAfterAccess(ctx, doctype, { fields: ['name'], filters, order_by: `${sortField} ${order}`, limit_page_length: 1 }),
  );
  const first = rows[0] as Record<string, unknown> | undefined;
  if (!first) {
    ctx.messages.add({ message: 'No further records', title: 'Not found', indicator: 'orange' });
    return null;
  }
  return String(first.name);
}

export function registerFormUtilsMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.form.utils.get_next', getNext, {
    description: "The next (or previous) document's name in the list order.",
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'value', type: 'string', required: true },
      { name: 'prev', type: 'any' },
      { name: 'filters', type: 'json' },
      { name: 'sort_order', type: 'string' },
      { name: 'sort_field', type: 'string' },
    ],
  });
}
