import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { DoesNotExistError, PermissionError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Download } from '../rpc/method-registry.js';
import { templateColumns, type TemplateColumn } from './import-columns.js';

/** The reference's `export_records` values. */
const EXPORT_RECORDS = new Set(['blank_template', '5_records', 'all', 'by_filter']);

/** What `download_template` was asked for. */
export interface TemplateRequest {
  readonly doctype: string;
  readonly exportFields?: Readonly<Record<string, readonly string[]>>;
  readonly exportRecords: string;
  readonly exportFilters?: Readonly<Record<string, unknown>>;
  readonly fileType: string;
}

/** A cell of a template row: numbers stay numbers (in Excel too), the rest is text. */
function templateCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  return typeof value === 'number' ? value : String(value);
}

/**
 * A document as template rows, the reference's layout: the first row holds the parent's values
 * and each table's first child; every further child is a row of its own with the parent columns
 * empty.
 */
function documentRows(doc: Doc, columns: readonly TemplateColumn[]): (string | number)[][] {
  const tables = new Map<string, Doc[]>();
  for (const c of columns) {
    const table = c.table?.def.fieldname;
    if (table && !tables.has(table)) tables.set(table, Array.isArray(doc[table]) ? (doc[table] as Doc[]) : []);
  }
  const height = Math.max(1, ...[...tables.values()].map((rows) => rows.length));
  const rows: (string | number)[][] = [];
  for (let i = 0; i < height; i++) {
    rows.push(
      columns.map((c) => {
        if (!c.table) return i === 0 ? templateCell(doc[c.fieldname]) : '';
        const child = tables.get(c.table.def.fieldname)?.[i];
        return child ? templateCell(child[c.fieldname]) : '';
      }),
    );
  }
  return rows;
}

/** Equality filters only (`{"status": "Open"}`): the template's records are picked, not queried. */
function checkedFilters(meta: Meta, filters: Readonly<Record<string, unknown>> | undefined): [string, unknown][] {
  if (filters === undefined) return [];
  return Object.entries(filters).map(([field, value]) => {
    if (field !== 'name' && !meta.field(field)?.column) throw new ValidationError(`Filter field ${field} is not a field of ${meta.name}`);
    if (value !== null && typeof value === 'object') throw new ValidationError('export_filters takes field values ({"field": value}) only');
    return [field, value];
  });
}

/** The documents a template with records holds: newest first, each read through the pipeline (read permission). */
async function templateDocuments(ctx: DocContext, documents: DocumentService, meta: Meta, request: TemplateRequest): Promise<Doc[]> {
  let query = ctx.dialect.builder.selectFrom(meta.tableName).select('name').orderBy('creation', 'desc').orderBy('name', 'desc');
  if (request.exportRecords === 'by_filter')
    for (const [field, value] of checkedFilters(meta, request.exportFilters)) query = query.where(field, '=', value as never);
  if (request.exportRecords === '5_records') query = query.limit(5);
  const names = await ctx.q.all<{ name: string }>(query.compile());
  const docs: Doc[] = [];
  for (const { name } of names) {
    try {
      docs.push(await documents.get(ctx, meta.name, name));
    } catch (err) {
      // A document the caller may not read is left out, as a list leaves it out.
      if (err instanceof PermissionError) continue;
      throw err;
    }
  }
  return docs;
}

/**
 * `download_template`: the import template of a DocType as CSV or Excel, blank or with records
 * (docs/import-export.md "Import"). Needs read permission on the DocType.
 */
export async function importTemplate(ctx: DocContext, documents: DocumentService, request: TemplateRequest): Promise<Download> {
  if (!ctx.metas.has(request.doctype)) throw new DoesNotExistError(`DocType ${request.doctype} not found`, { doctype: request.doctype });
  const meta = ctx.metas.get(request.doctype);
  if (meta.isChild || meta.isSingle) throw new ValidationError(`${meta.name} cannot be imported: use its parent DocType's template`);
  await documents.authorize(ctx, meta, 'read');
  if (!EXPORT_RECORDS.has(request.exportRecords)) throw new ValidationError(`export_records must be one of ${[...EXPORT_RECORDS].join(', ')}`);
  const columns = templateColumns(meta, ctx.metas, request.exportFields);
  const rows: (string | number)[][] = [columns.map((c) => c.header)];
  if (request.exportRecords !== 'blank_template') {
    for (const doc of await templateDocuments(ctx, documents, meta, request)) rows.push(...documentRows(doc, columns));
  }
  if (request.fileType === 'Excel') {
    // exceljs is imported by the first Excel template or import (docs/benchmarks.md "Modules loaded on first use").
    const { default: ExcelJS } = await import('exceljs');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet(meta.name.slice(0, 31).replace(/[\\/?*[\]:]/g, '_'));
    for (const row of rows) sheet.addRow(row);
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    return { fileName: `${meta.name}.xlsx`, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', body: Readable.from([buffer]) };
  }
  if (request.fileType !== 'CSV') throw new ValidationError('file_type must be CSV or Excel');
  return { fileName: `${meta.name}.csv`, contentType: 'text/csv; charset=utf-8', body: Readable.from([stringify(rows)]) };
}
