import { DataError, PermissionError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import { listFieldAccess, type FieldAccess } from '../permissions/list-field-access.js';
import { listRestriction } from '../permissions/list-restriction.js';
import { permissionContext } from '../permissions/permission-context.js';
import { compileCountQuery, compileListQuery } from '../query/compile-list-query.js';
import type { Condition, ListQuery } from '../query/list-query.js';
import { parseListParams } from '../query/parse-list-params.js';
import { shapeRows } from '../query/shape-rows.js';
import type { DocContext } from './doc-context.js';

/** Which API dialect the parameters follow (v1 `limit_start`/`limit_page_length`, v2 `start`/`limit`). */
export type ListVersion = 'v1' | 'v2';

/** A page of list rows; `hasNextPage` is known when the caller asked for one row more. */
export interface ListResult {
  readonly rows: unknown[];
  readonly hasNextPage: boolean;
}

/** What the permission layer hands the list compiler: a row condition and a field check. */
interface PermissionScope {
  readonly restrict: Condition | undefined;
  readonly canRead: FieldAccess;
}

/**
 * The rows and fields a principal may see, filtered in SQL (reference §7.6, see listRestriction).
 * A child DocType is listed through its parent (`parent=<DocType>`), under the parent's
 * permissions; when the parent's rows are restricted for the principal, child rows cannot be
 * limited to those parents here, so such a list is refused rather than answered in full.
 */
async function permissionScope(ctx: DocContext, meta: Meta, parent: unknown): Promise<PermissionScope> {
  const pc = permissionContext(ctx);
  if (!meta.isChild) {
    return { restrict: await listRestriction(pc, meta), canRead: listFieldAccess(ctx.principal, meta, meta) };
  }
  if (typeof parent !== 'string' || parent === '') {
    throw new DataError(`${meta.name} is a child table: pass parent=<parent DocType> to list it`);
  }
  const subject = ctx.metas.get(parent);
  if (!subject.tableFields.some((f) => f.def.options === meta.name)) {
    throw new DataError(`${parent} has no child table of ${meta.name}`);
  }
  if ((await listRestriction(pc, subject)) !== undefined) {
    throw new PermissionError(`Rows of ${meta.name} can only be read through the ${subject.name} documents you may read`, {
      doctype: subject.name,
    });
  }
  return {
    restrict: { field: { field: 'parenttype' }, op: '=', value: parent },
    canRead: listFieldAccess(ctx.principal, subject, meta),
  };
}

/** Lists documents by the reference's list parameters (API.md "Lists"). */
export async function listDocuments(
  ctx: DocContext,
  doctype: string,
  raw: Record<string, unknown>,
  version: ListVersion,
): Promise<ListResult> {
  const meta = ctx.metas.get(doctype);
  const { restrict, canRead } = await permissionScope(ctx, meta, raw.parent);
  const parsed = parseListParams(raw, { version, doctype });
  const probeNext = version === 'v2' && parsed.pageLength > 0;
  const query: ListQuery = probeNext ? { ...parsed, pageLength: parsed.pageLength + 1 } : parsed;
  const { statement, columns } = compileListQuery(query, {
    meta,
    metaOf: (d) => ctx.metas.get(d),
    dialect: ctx.dialect,
    timeZone: ctx.settings.timeZone,
    restrict,
    canRead,
    defaultDirection: version === 'v2' ? 'desc' : 'asc',
  });
  const stored = await ctx.q.all(statement);
  const hasNextPage = probeNext && stored.length > parsed.pageLength;
  const page = hasNextPage ? stored.slice(0, parsed.pageLength) : stored;
  return { rows: shapeRows(page, columns, parsed.asDict), hasNextPage };
}

/** Counts the documents matching `filters` that the principal may see. */
export async function countDocuments(ctx: DocContext, doctype: string, raw: Record<string, unknown>): Promise<number> {
  const meta = ctx.metas.get(doctype);
  const { restrict, canRead } = await permissionScope(ctx, meta, raw.parent);
  const query = parseListParams({ filters: raw.filters, or_filters: raw.or_filters }, { version: 'v1', doctype });
  const statement = compileCountQuery(query, {
    meta,
    metaOf: (d) => ctx.metas.get(d),
    dialect: ctx.dialect,
    timeZone: ctx.settings.timeZone,
    restrict,
    canRead,
  });
  const rows = await ctx.q.all<Record<string, unknown>>(statement);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
}
