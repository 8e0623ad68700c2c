import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { planList, runList } from '../documents/lists/list-documents.js';
import { DataError, DoesNotExistError, PermissionError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { REPORT } from './doctypes/index.js';
import { readReportQuery, type ReportQuery } from './report-definition.js';

/** The report types fw refuses to run: each would run code a user wrote (docs/reports.md "Running a report"). */
const CODE_REPORTS: ReadonlySet<string> = new Set(['Query Report', 'Script Report', 'Custom Report']);

/** The output name of a group-by's aggregate, as the reference's report view names it. */
export const AGGREGATE_COLUMN = '_aggregate_column';

/** Labels of the standard columns, as the reference's get_label gives them. */
const STANDARD_LABELS: Readonly<Record<string, [string, string]>> = {
  name: ['ID', 'Link'],
  owner: ['Created By', 'Link'],
  creation: ['Created On', 'Datetime'],
  modified: ['Last Updated On', 'Datetime'],
  modified_by: ['Last Updated By', 'Link'],
  docstatus: ['Document Status', 'Int'],
  idx: ['Index', 'Int'],
  parent: ['Parent', 'Data'],
};
const NUMERIC: ReadonlySet<string> = new Set(['Int', 'Long Int', 'Float', 'Currency', 'Percent']);

/** One column of a report's answer. */
export interface ReportColumn {
  readonly fieldname: string;
  readonly label: string;
  readonly fieldtype: string;
  readonly options?: string;
}

/** A Report the caller may run, with the DocType it reports on. */
export interface RunnableReport {
  readonly report: Doc;
  readonly meta: Meta;
}

/**
 * The Report named `name` when the caller may run it (reference get_report_doc): one of its roles
 * (none: anyone), the `report` right on its DocType, not disabled, and a Report Builder report.
 */
export async function runnableReport(ctx: DocContext, documents: DocumentService, name: string): Promise<RunnableReport> {
  const report = await documents.load(ctx, REPORT, name);
  if (!report) throw new DoesNotExistError(`Report ${name} not found`, { doctype: REPORT });
  const roles = (Array.isArray(report.roles) ? (report.roles as Doc[]) : []).map((r) => String(r.role));
  const { principal } = ctx;
  if (roles.length > 0 && !principal.isAdministrator && !roles.some((r) => principal.roles.has(r))) {
    throw new PermissionError(`You don't have access to Report: ${name}`, { doctype: REPORT });
  }
  const doctype = String(report.ref_doctype ?? '');
  if (!ctx.metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype} not found`, { doctype });
  const meta = ctx.metas.get(doctype);
  if (!(await documents.can(ctx, meta, 'report'))) throw new PermissionError(`You don't have permission to get a report on: ${doctype}`, { doctype });
  if (Number(report.disabled) === 1) throw new ValidationError(`Report ${name} is disabled`, { doctype: REPORT });
  const type = String(report.report_type ?? 'Report Builder');
  if (CODE_REPORTS.has(type)) {
    throw new ValidationError(`Report ${name} is a ${type}: fw runs no SQL or Python reports; save it as a Report Builder report`, { doctype: REPORT });
  }
  return { report, meta };
}

/** The child DocTypes of `meta` by the Table field that holds them. */
export function childTablesOf(meta: Meta): Map<string, string> {
  return new Map(meta.tableFields.map((f) => [String(f.def.options), f.def.fieldname]));
}

/** The run-time `filters` of query_report.run: `{field: value}` or `{field: [op, value]}`, or a list of conditions. */
function runFilters(meta: Meta, filters: unknown): unknown[] {
  if (filters === undefined || filters === null || filters === '') return [];
  if (Array.isArray(filters)) return filters;
  if (typeof filters !== 'object') throw new DataError('filters must be an object or a list');
  return Object.entries(filters as Record<string, unknown>).map(([field, value]) =>
    Array.isArray(value) && value.length === 2 ? [meta.name, field, value[0], value[1]] : [meta.name, field, '=', value],
  );
}

/** A column's label and type from the metadata of the DocType it belongs to. */
function describeColumn(ctx: DocContext, doctype: string, fieldname: string, key: string): ReportColumn {
  const standard = STANDARD_LABELS[fieldname];
  if (standard) return { fieldname: key, label: standard[0], fieldtype: standard[1], ...(fieldname === 'name' ? { options: doctype } : {}) };
  const field = ctx.metas.get(doctype).field(fieldname);
  const options = field?.def.options;
  return { fieldname: key, label: field?.def.label || fieldname, fieldtype: field?.def.fieldtype ?? 'Data', ...(options ? { options } : {}) };
}

/** The DocType and field a list-layer reference (`field` or `table.field`) names. */
function owner(meta: Meta, ref: string): { doctype: string; fieldname: string } {
  const dot = ref.indexOf('.');
  if (dot < 0) return { doctype: meta.name, fieldname: ref };
  const table = meta.field(ref.slice(0, dot));
  return { doctype: String(table?.def.options ?? meta.name), fieldname: ref.slice(dot + 1) };
}

/** The reference's total row: numeric columns summed (Percent averaged), "Total" in a first column that is not numeric. */
function totalRow(columns: readonly ReportColumn[], rows: readonly Record<string, unknown>[]): Record<string, unknown> {
  const total: Record<string, unknown> = {};
  for (const c of columns) {
    if (!NUMERIC.has(c.fieldtype)) {
      total[c.fieldname] = '';
      continue;
    }
    const sum = rows.reduce((acc, r) => acc + (Number(r[c.fieldname]) || 0), 0);
    total[c.fieldname] = c.fieldtype === 'Percent' && rows.length > 0 ? sum / rows.length : sum;
  }
  const first = columns[0];
  if (first && !NUMERIC.has(first.fieldtype)) total[first.fieldname] = 'Total';
  return total;
}

/** The answer of query_report.run (reference generate_report_result plus run's add_total_row). */
export interface ReportResult {
  readonly result: Record<string, unknown>[];
  readonly columns: ReportColumn[];
  readonly message: null;
  readonly chart: { data: { labels: string[]; datasets: { name: string; values: number[] }[] }; type: string } | null;
  readonly report_summary: null;
  readonly skip_total_row: 0;
  readonly status: null;
  readonly execution_time: number;
  readonly add_total_row: 0 | 1;
}

/**
 * Runs a Report Builder report as the caller (docs/reports.md "Running a report"): its saved query
 * through the list layer, so the caller's row conditions, User Permissions and field levels apply;
 * a group-by answers one row per group with its aggregate and a bar chart of them.
 */
export async function runReport(ctx: DocContext, { report, meta }: RunnableReport, filters: unknown): Promise<ReportResult> {
  const started = performance.now();
  const q: ReportQuery = readReportQuery(meta, report.json === undefined || report.json === null ? undefined : String(report.json), childTablesOf(meta));
  const where = [...q.filters, ...runFilters(meta, filters)];
  let columns: ReportColumn[];
  let chart: ReportResult['chart'] = null;
  let rows: Record<string, unknown>[];
  if (q.groupBy) {
    const g = q.groupBy;
    const groupKey = g.field.replace('.', '_');
    const groupOwner = owner(meta, g.field);
    const groupColumn = describeColumn(ctx, groupOwner.doctype, groupOwner.fieldname, groupKey);
    const onLabel = g.on === undefined ? '' : describeColumn(ctx, owner(meta, g.on).doctype, owner(meta, g.on).fieldname, g.on).label;
    const aggregateLabel = g.fn === 'count' ? 'Count' : `${g.fn === 'sum' ? 'Sum' : 'Average'} of ${onLabel}`;
    const plan = await planList(
      ctx,
      await listQueryAfterAccess(ctx, meta.name, {
        fields: [`${g.field} as ${groupKey}`, `${g.fn}(${g.on ?? '*'}) as ${AGGREGATE_COLUMN}`],
        filters: where,
        group_by: g.field,
        order_by: `${g.field} asc`,
        limit_page_length: 0,
      }),
    );
    rows = (await runList(ctx, plan)).rows as Record<string, unknown>[];
    const keys = new Set(plan.columns.map((c) => c.key));
    columns = [groupColumn, { fieldname: AGGREGATE_COLUMN, label: aggregateLabel, fieldtype: g.fn === 'count' ? 'Int' : 'Float' }].filter((c) =>
      keys.has(c.fieldname),
    );
    if (keys.has(groupKey)) {
      chart = {
        data: {
          labels: rows.map((r) => (r[groupKey] === null || r[groupKey] === undefined || r[groupKey] === '' ? 'Not Set' : String(r[groupKey]))),
          datasets: [{ name: aggregateLabel, values: rows.map((r) => Number(r[AGGREGATE_COLUMN]) || 0) }],
        },
        type: 'bar',
      };
    }
  } else {
    const plan = await planList(
      ctx,
      await listQueryAfterAccess(ctx, meta.name, {
        fields: q.fields.map((f) => `${f.expr} as ${f.key}`),
        filters: where,
        ...(q.orderBy ? { order_by: q.orderBy } : {}),
        limit_page_length: 0,
      }),
    );
    rows = (await runList(ctx, plan)).rows as Record<string, unknown>[];
    // A field above the caller's permlevel is dropped by the list layer; its column goes with it.
    const keys = new Set(plan.columns.map((c) => c.key));
    columns = q.fields.filter((f) => keys.has(f.key)).map((f) => describeColumn(ctx, f.doctype, f.fieldname, f.key));
  }
  const addTotal = Number(report.add_total_row) === 1 || q.addTotalRow;
  if (addTotal && rows.length > 0) rows.push(totalRow(columns, rows));
  return {
    result: rows,
    columns,
    message: null,
    chart,
    report_summary: null,
    skip_total_row: 0,
    status: null,
    execution_time: Math.round(performance.now() - started) / 1000,
    add_total_row: addTotal ? 1 : 0,
  };
}
