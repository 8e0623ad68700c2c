import type { Readable } from 'node:stream';
import { csvExport } from '../data-export/csv-export.js';
import type { CellKind, ExportColumn } from '../data-export/export-columns.js';
import { exportRequest } from '../data-export/export-request.js';
import type { ExportLine } from '../data-export/export-rows.js';
import { xlsxExport } from '../data-export/xlsx-export.js';
import type { DocumentService } from '../documents/document-service.js';
import { FrappeTypeError } from '../errors/index.js';
import { permissionDenied } from '../permissions/permission-denied.js';
import type { MethodCall } from '../rpc/method-registry.js';
import { runnableReport, runReport, type ReportColumn } from './run-report.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NUMBER_TYPES: ReadonlySet<string> = new Set(['Int', 'Long Int', 'Float', 'Currency', 'Percent', 'Check', 'Rating', 'Duration']);

/** How a report column's cells are written to the file. */
function kindOf(column: ReportColumn): CellKind {
  if (NUMBER_TYPES.has(column.fieldtype)) return 'number';
  if (column.fieldtype === 'Date') return 'date';
  if (column.fieldtype === 'Datetime') return 'datetime';
  return 'text';
}

/** The rows the client shows (`visible_idx`, indexes into `result`); all rows when it names none. */
function visibleRows<T>(rows: readonly T[], visibleIdx: unknown): readonly T[] {
  if (visibleIdx === undefined || visibleIdx === null || visibleIdx === '') return rows;
  if (!Array.isArray(visibleIdx) || visibleIdx.some((i) => !Number.isInteger(i) || i < 0)) {
    throw new FrappeTypeError('visible_idx must be a list of row numbers (0 is the first row)');
  }
  const wanted = new Set(visibleIdx as number[]);
  return rows.filter((_, i) => wanted.has(i));
}

async function* linesOf(rows: readonly Record<string, unknown>[], columns: readonly ReportColumn[]): AsyncGenerator<ExportLine> {
  let sr = 0;
  for (const row of rows) yield { sr: ++sr, values: columns.map((c) => row[c.fieldname] ?? null) };
}

/**
 * `fw.desk.query_report.export_query` (docs/reports.md "Exporting a report"): the report run as
 * the caller, as `run` answers it (their rows and columns only, group-by and total row included),
 * written as a CSV or Excel file named after the report. Needs what `run` needs and the `export`
 * right on the report's DocType; everything is refused before the first byte, as JSON.
 */
export async function exportReport({ ctx, args, http }: MethodCall, documents: DocumentService): Promise<undefined> {
  const name = String(args.report_name);
  const runnable = await runnableReport(ctx, documents, name);
  if (!(await documents.can(ctx, runnable.meta, 'export'))) throw permissionDenied(ctx.principal, runnable.meta, 'export');
  const request = exportRequest({ doctype: runnable.meta.name, file_format_type: args.file_format_type, csv_delimiter: args.csv_delimiter, title: name });
  const answer = await runReport(ctx, runnable, args.filters);
  const rows = visibleRows(answer.result, args.visible_idx);
  const columns: ExportColumn[] = answer.columns.map((c) => ({ field: c.fieldname, heading: c.label, kind: kindOf(c) }));
  const lines = linesOf(rows, answer.columns);
  const body: Readable = request.format === 'CSV' ? csvExport(columns, lines, request.delimiter) : await xlsxExport(columns, lines, request.title);
  try {
    await http.sendDownload({
      fileName: `${request.title}.${request.format === 'CSV' ? 'csv' : 'xlsx'}`,
      contentType: request.format === 'CSV' ? 'text/csv; charset=utf-8' : XLSX_TYPE,
      body,
    });
  } finally {
    body.destroy();
  }
  return undefined;
}
