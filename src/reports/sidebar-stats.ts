import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocContext } from '../documents/doc-context.js';
import { planList, runList } from '../documents/lists/list-documents.js';
import { DataError } from '../errors/index.js';

/**
 * The older list sidebar's counts (reference reportview.get_sidebar_stats; docs/reports.md "Sidebar
 * counts"): for each field of `stats` that is a column of the DocType, `[[value, count], …]` over the
 * readable documents matching `filters` where the field is set; other names are left out.
 */
export async function sidebarStats(ctx: DocContext, doctype: string, stats: unknown, filters: unknown): Promise<{ stats: Record<string, unknown[][]> }> {
  if (!Array.isArray(stats) || stats.some((s) => typeof s !== 'string')) throw new DataError('stats must be a list of field names');
  const where = filters === undefined || filters === null || filters === '' ? [] : filters;
  if (!Array.isArray(where)) throw new DataError('filters must be a list of conditions');
  const meta = ctx.metas.get(doctype);
  const out: Record<string, unknown[][]> = {};
  for (const field of stats as string[]) {
    if (!meta.hasColumn(field)) continue;
    const plan = await planList(
      ctx,
      await listQueryAfterAccess(ctx, doctype, {
        fields: [`${field} as value`, 'count(*) as count'],
        filters: [...where, [field, 'is', 'set']],
        group_by: field,
        order_by: `${field} asc`,
        limit_page_length: 0,
        as_dict: false,
      }),
    );
    if (plan.columns.length < 2) continue;
    out[field] = (await runList(ctx, plan)).rows as unknown[][];
  }
  return { stats: out };
}

/**
 * How many readable documents are in each workflow state other than `states` (reference
 * get_workflow_state_count, which the list sidebar asks): `[{<state field>: state, count}]`.
 */
export async function workflowStateCount(ctx: DocContext, doctype: string, stateField: string, states: unknown): Promise<Record<string, unknown>[]> {
  const meta = ctx.metas.get(doctype);
  if (!meta.hasColumn(stateField)) return [];
  const known = Array.isArray(states) ? states : [];
  const filters = known.length > 0 ? [[stateField, 'not in', known]] : [];
  const plan = await planList(
    ctx,
    await listQueryAfterAccess(ctx, doctype, { fields: [stateField, 'count(*) as count'], filters, group_by: stateField, limit_page_length: 0 }),
  );
  const rows = (await runList(ctx, plan)).rows as Record<string, unknown>[];
  return rows.filter((r) => r[stateField] !== null && r[stateField] !== undefined && r[stateField] !== '');
}
