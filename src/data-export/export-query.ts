import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { Readable } from 'node:stream';
import { listRows, planList } from '../documents/lists/list-documents.js';
import { permissionContext } from '../documents/unit-permissions.js';
import { mayUseDocType } from '../permissions/document-access.js';
import { listFieldAccess } from '../permissions/list-field-access.js';
import { permissionDenied } from '../permissions/permission-denied.js';
import type { MethodCall } from '../rpc/method-registry.js';
import { csvExport } from './csv-export.js';
import { exportColumns } from './export-columns.js';
import { exportRequest } from './export-request.js';
import { exportLines } from './export-rows.js';
import { xlsxExport } from './xlsx-export.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * `fw.desk.reportview.export_query` (docs/import-export.md "Export"): the rows the caller may read,
 * in the columns they may read, as a CSV or XLSX attachment streamed from a database cursor. The
 * `export` right is checked first; then the list query applies the row permissions and the
 * filters. Everything that can be refused is refused before the first byte, as JSON.
 */
export async function exportQuery({ ctx, args, http }: MethodCall): Promise<undefined> {
  const request = exportRequest(args);
  const meta = ctx.metas.get(request.doctype);
  if (!(await mayUseDocType(permissionContext(ctx), meta, 'export'))) throw permissionDenied(ctx.principal, meta, 'export');
  const columns = exportColumns(args.fields, { meta, metaOf: (d) => ctx.metas.get(d), canRead: listFieldAccess(ctx.principal, meta, meta) });
  const plan = await planList(ctx, await listQueryAfterAccess(ctx, request.doctype, { ...request.listArgs, fields: columns.map((c) => c.field) }));
  if (plan.columns.length !== columns.length) throw new Error(`export of ${meta.name}: the list query chose other columns than the export`);
  const rows = listRows(ctx, plan)[Symbol.asyncIterator]();
  // Read before anything is sent, so a statement that fails still answers as JSON.
  const first = await rows.next();
  const lines = exportLines(first, rows, columns);
  let body: Readable | undefined;
  try {
    body = request.format === 'CSV' ? csvExport(columns, lines, request.delimiter) : await xlsxExport(columns, lines, request.title);
    await http.sendDownload({
      fileName: `${request.title}.${request.format === 'CSV' ? 'csv' : 'xlsx'}`,
      contentType: request.format === 'CSV' ? 'text/csv; charset=utf-8' : XLSX_TYPE,
      body,
    });
  } finally {
    // A client that left mid-file: the cursor closes here, inside its unit of work.
    body?.destroy();
    await lines.return(undefined);
  }
  return undefined;
}
