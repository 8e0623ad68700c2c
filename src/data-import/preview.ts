import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { withSavepoint } from '../documents/savepoint.js';
import type { FileStore } from '../files/file-store.js';
import type { Meta } from '../meta/meta.js';
import { applyPayload } from './apply-payload.js';
import { cellText } from './cells.js';
import { DATE_FORMAT_OF } from './cell-values.js';
import { DONT_IMPORT, type FileColumn } from './import-columns.js';
import type { ImportSettings } from './import-access.js';
import { buildPayload, payloadsOf, planImport, type ImportPlan } from './payloads.js';
import { importSource } from './source-rows.js';

/** Rows the preview shows, as the reference does. */
export const MAX_ROWS_IN_PREVIEW = 10;
/** Warnings the preview answers at most (docs/import-export.md "Import"); the rest are counted. */
export const MAX_WARNINGS = 500;

/** A warning of the preview: about a row (`row`, the file's row number) or a column (`col`, from 1). */
export interface PreviewWarning {
  readonly row?: number;
  readonly col?: number;
  readonly message: string;
  readonly type?: 'info';
}

/** Thrown inside the savepoint to undo a dry-run write that succeeded. */
const DRY_RUN = Symbol('dry run');
/** Documents one dry-run transaction checks at most, and how long it may stay open (ms). */
const BATCH_DOCUMENTS = 100;
const BATCH_MS = 250;

/**
 * Runs `work` in a write transaction of its own that is always rolled back. The preview checks
 * the file in such batches, so a large file never holds the site's writer for long: other writes
 * go in between (docs/import-export.md "Import").
 */
export type RolledBackUnit = (work: (ctx: DocContext) => Promise<void>) => Promise<void>;

function columnAnswer(c: FileColumn, plan: ImportPlan) {
  const t = c.target;
  const field = t?.field?.def;
  const order = plan.dateOrders.get(c.index);
  return {
    header_title: c.header,
    map_to_field: t ? (t.table ? `${t.table.def.fieldname}.${t.fieldname}` : t.fieldname) : DONT_IMPORT,
    date_format: order ? DATE_FORMAT_OF[order] : undefined,
    df: field
      ? { fieldname: field.fieldname, fieldtype: field.fieldtype, label: field.label, reqd: field.reqd ?? 0, options: field.options, parent: t!.meta.name }
      : t
        ? { fieldname: 'name', fieldtype: 'Data', label: 'ID', parent: t.meta.name }
        : undefined,
    skip_import: t === undefined,
    warnings: c.skipReason ? [{ col: c.index + 1, message: c.skipReason, type: 'info' as const }] : [],
  };
}

/**
 * The dry run of `get_preview_from_template`: reads the whole file once after the planning pass,
 * writes every document through the same pipeline the import uses inside a savepoint that is then
 * rolled back, and answers the first rows, the columns, every warning (capped) and the row count.
 * Nothing it did stays: not the documents, not their naming-series counters, not their events.
 */
export async function previewImport(
  ctx: DocContext,
  documents: DocumentService,
  files: FileStore,
  settings: ImportSettings,
  meta: Meta,
  rolledBack: RolledBackUnit,
) {
  const source = importSource(files, settings.importFile);
  const plan = await planImport(source, meta, ctx.metas, settings.columnToField);
  const warnings: PreviewWarning[] = [];
  let warningCount = 0;
  const warn = (w: PreviewWarning) => {
    warningCount++;
    if (warnings.length < MAX_WARNINGS) warnings.push(w);
  };
  const columns = plan.columns.map((c) => columnAnswer(c, plan));
  for (const c of columns) for (const w of c.warnings) warn(w);
  const data: unknown[][] = [];
  const options = { importType: settings.importType, submitAfterImport: settings.submitAfterImport };
  const payloads = payloadsOf(source, plan);
  let next = await payloads.next();
  while (!next.done) {
    await rolledBack(async (unit) => {
      const until = Date.now() + BATCH_MS;
      for (let n = 0; !next.done && n < BATCH_DOCUMENTS && Date.now() < until; n++, next = await payloads.next()) {
        const payload = next.value;
        for (const row of payload.rows) {
          if (data.length < MAX_ROWS_IN_PREVIEW) data.push([row.number, ...plan.columns.map((c) => cellText(row.cells[c.index] ?? null))]);
        }
        const built = buildPayload(payload, plan);
        if (built.problems.length > 0) {
          for (const p of built.problems) warn({ row: p.row, message: p.message });
          continue;
        }
        try {
          await withSavepoint(
            unit.q,
            async () => {
              await applyPayload(unit, documents, meta, built.doc, options);
              throw DRY_RUN;
            },
            unit.unit,
          );
        } catch (err) {
          if (err !== DRY_RUN) warn({ row: payload.rows[0]!.number, message: (err as Error).message });
        }
      }
    });
  }
  return {
    columns,
    data,
    warnings,
    number_of_warnings: warningCount,
    max_rows_exceeded: false,
    max_rows_in_preview: MAX_ROWS_IN_PREVIEW,
    total_number_of_rows: plan.rowCount,
    payload_count: plan.payloadCount,
  };
}
