import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocContext } from '../documents/doc-context.js';
import { planList, runList } from '../documents/lists/list-documents.js';
import type { Row } from '../storage/database.js';

/** How many groups the sidebar gets, most frequent first (the reference's limit). */
const GROUP_LIMIT = 50;
/** Names per ToDo query when counting assignments. */
const CHUNK = 500;

/** One sidebar group: a value of the field and how many documents have it. */
export interface GroupCount {
  readonly name: unknown;
  readonly count: number;
}

function mostFirst(groups: GroupCount[]): GroupCount[] {
  return groups.sort((a, b) => b.count - a.count || String(a.name).localeCompare(String(b.name))).slice(0, GROUP_LIMIT);
}

/**
 * The list sidebar's counts (reference get_group_by_count; docs/reports.md "Sidebar counts"): for
 * the documents matching `filters` that the caller may read, how many have each value of `field`
 * (`assigned_to`: how many are assigned to each user by an open or closed ToDo). The field goes
 * through the list layer, so an unknown or unreadable one is refused or dropped as in any list.
 */
export async function groupByCount(ctx: DocContext, doctype: string, filters: unknown, field: string): Promise<GroupCount[]> {
  const where = filters ?? [];
  if (field === 'assigned_to') return assignmentCounts(ctx, doctype, where);
  const plan = await planList(
    ctx,
    await listQueryAfterAccess(ctx, doctype, { fields: [`${field} as name`, 'count(*) as count'], filters: where, group_by: field, limit_page_length: 0 }),
  );
  if (!plan.columns.some((c) => c.key === 'name')) return [];
  const { rows } = await runList(ctx, plan);
  return mostFirst((rows as Record<string, unknown>[]).map((r) => ({ name: r.name, count: Number(r.count) })));
}

/** Counts the ToDos that assign the readable, matching documents, by assignee. */
async function assignmentCounts(ctx: DocContext, doctype: string, filters: unknown): Promise<GroupCount[]> {
  const plan = await planList(ctx, await listQueryAfterAccess(ctx, doctype, { fields: ['name'], filters, limit_page_length: 0 }));
  const names = ((await runList(ctx, plan)).rows as Record<string, unknown>[]).map((r) => String(r.name));
  const counts = new Map<string, number>();
  const todo = ctx.metas.get('ToDo').tableName;
  for (let i = 0; i < names.length; i += CHUNK) {
    const rows = await ctx.q.all<Row>(
      ctx.dialect.builder
        .selectFrom(todo)
        .select(['allocated_to'])
        .select((eb) => eb.fn.countAll().as('n'))
        .where('reference_type', '=', doctype)
        .where('reference_name', 'in', names.slice(i, i + CHUNK))
        .where('status', '!=', 'Cancelled')
        .where('allocated_to', 'is not', null)
        .groupBy('allocated_to')
        .compile(),
    );
    for (const r of rows) counts.set(String(r.allocated_to), (counts.get(String(r.allocated_to)) ?? 0) + Number(r.n));
  }
  return mostFirst([...counts].map(([name, count]) => ({ name, count })));
}
