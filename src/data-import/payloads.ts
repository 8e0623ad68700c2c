import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import { cellText, isEmptyCell, type SourceRow } from './cells.js';
import { dateOrderEvidence, fieldValue, isDateField, type DateOrder } from './cell-values.js';
import { matchColumns, type FileColumn } from './import-columns.js';
import type { ImportSource } from './source-rows.js';

/** How a file's columns are read: matched headings, and each date column's day/month order. */
export interface ImportPlan {
  readonly meta: Meta;
  readonly columns: readonly FileColumn[];
  readonly headerRow: number;
  readonly dateOrders: ReadonlyMap<number, DateOrder>;
  /** What the first pass counted. */
  readonly rowCount: number;
  readonly payloadCount: number;
}

/** One document of the file: the rows that make it (the first holds the parent's values). */
export interface Payload {
  /** 0-based position among the file's documents: the log's `log_index`. */
  readonly index: number;
  readonly rows: readonly SourceRow[];
}

const parentColumns = (columns: readonly FileColumn[]) => columns.filter((c) => c.target && !c.target.table);
const hasChildColumns = (columns: readonly FileColumn[]) => columns.some((c) => c.target?.table);

function parentKey(row: SourceRow, parents: readonly FileColumn[]): string | undefined {
  const values = parents.map((c) => cellText(row.cells[c.index]).trim());
  return values.every((v) => v === '') ? undefined : JSON.stringify(values);
}

/**
 * Groups data rows into documents as the reference does: a row whose parent columns are empty, or
 * equal to those of its document's first row when the file has child columns, adds child rows to
 * that document; any other row starts a new one. Empty rows are skipped.
 */
async function* grouped(rows: AsyncIterable<SourceRow>, columnsOf: () => readonly FileColumn[]): AsyncGenerator<Payload> {
  // The header is read with the first row, so the columns are only known once a data row arrives.
  let parents: readonly FileColumn[] | undefined;
  let withChildren = false;
  let current: SourceRow[] = [];
  let currentKey: string | undefined;
  let index = 0;
  for await (const row of rows) {
    if (row.cells.every((c) => isEmptyCell(c))) continue;
    if (!parents) {
      parents = parentColumns(columnsOf());
      withChildren = hasChildColumns(columnsOf());
    }
    const key = parentKey(row, parents);
    const continues = current.length > 0 && (key === undefined || (withChildren && key === currentKey));
    if (continues) {
      current.push(row);
      continue;
    }
    if (current.length > 0) yield { index: index++, rows: current };
    current = [row];
    currentKey = key;
  }
  if (current.length > 0) yield { index: index++, rows: current };
}

/** The data rows: everything after the header (the first row that is not empty). */
async function* afterHeader(source: ImportSource, onHeader: (row: SourceRow) => void): AsyncGenerator<SourceRow> {
  let header = false;
  for await (const row of source.rows()) {
    if (!header) {
      if (row.cells.every((c) => isEmptyCell(c))) continue;
      header = true;
      onHeader(row);
      continue;
    }
    yield row;
  }
}

/**
 * The first pass over a file: matches the header, counts rows and documents, and guesses each
 * text date column's order from its values (the most frequent unambiguous reading wins; day
 * first when nothing tells, docs/import-export.md "Import").
 */
export async function planImport(
  source: ImportSource,
  meta: Meta,
  metas: MetaRegistry,
  columnToField?: Readonly<Record<string, unknown>>,
  options: { readonly headerOnly?: boolean } = {},
): Promise<ImportPlan> {
  let columns: FileColumn[] = [];
  let headerRow = 1;
  let dateColumns: FileColumn[] = [];
  const votes = new Map<number, { dmy: number; mdy: number }>();
  let rowCount = 0;
  const counted = async function* (rows: AsyncIterable<SourceRow>) {
    for await (const row of rows) {
      if (row.cells.every((c) => isEmptyCell(c))) continue;
      rowCount++;
      for (const c of dateColumns) {
        const evidence = dateOrderEvidence(row.cells[c.index] ?? null);
        if (evidence) votes.get(c.index)![evidence]++;
      }
      yield row;
    }
  };
  const rows = afterHeader(source, (row) => {
    headerRow = row.number;
    columns = matchColumns(
      row.cells.map((c) => cellText(c)),
      meta,
      metas,
      columnToField,
    );
    dateColumns = columns.filter((c) => isDateField(c.target?.field));
    for (const c of dateColumns) votes.set(c.index, { dmy: 0, mdy: 0 });
  });
  let payloadCount = 0;
  if (options.headerOnly) {
    // A later slice already knows the counts and date orders: the header gives the columns.
    await rows.next();
    await rows.return(undefined);
  } else {
    for await (const _ of grouped(counted(rows), () => columns)) payloadCount++;
  }
  const dateOrders = new Map<number, DateOrder>();
  for (const [index, v] of votes) dateOrders.set(index, v.mdy > v.dmy ? 'mdy' : 'dmy');
  return { meta, columns, headerRow, dateOrders, rowCount, payloadCount };
}

/** The second pass: the file's documents in order, grouped as {@link planImport} counted them. */
export async function* payloadsOf(source: ImportSource, plan: ImportPlan): AsyncGenerator<Payload> {
  yield* grouped(
    afterHeader(source, () => {}),
    () => plan.columns,
  );
}

/** A payload made into a document, and the problems of its cells (row by row). */
export interface BuiltPayload {
  readonly doc: Doc;
  readonly problems: readonly { readonly row: number; readonly message: string }[];
}

/**
 * The document of a payload: parent values from its first row, a child row per row that fills
 * any column of that table. A cell that cannot be read is a problem of its row; its document is
 * then never written (the value is not dropped silently).
 */
export function buildPayload(payload: Payload, plan: ImportPlan): BuiltPayload {
  const doc: Doc = {};
  const problems: { row: number; message: string }[] = [];
  const read = (row: SourceRow, c: FileColumn, into: Doc) => {
    const target = c.target!;
    const cell = row.cells[c.index] ?? null;
    if (target.fieldname === 'name') {
      if (!isEmptyCell(cell)) into.name = cellText(cell).trim();
      return;
    }
    try {
      const value = fieldValue(cell, target.field!, plan.dateOrders.get(c.index) ?? 'dmy');
      if (value !== undefined) into[target.fieldname] = value;
    } catch (err) {
      problems.push({ row: row.number, message: (err as Error).message });
    }
  };
  const [first] = payload.rows;
  for (const c of plan.columns) if (c.target && !c.target.table) read(first!, c, doc);
  const tables = new Map<string, FileColumn[]>();
  for (const c of plan.columns) {
    const table = c.target?.table?.def.fieldname;
    if (table) tables.set(table, [...(tables.get(table) ?? []), c]);
  }
  for (const [table, columns] of tables) {
    const children: Doc[] = [];
    for (const row of payload.rows) {
      if (columns.every((c) => isEmptyCell(row.cells[c.index] ?? null))) continue;
      const child: Doc = {};
      for (const c of columns) read(row, c, child);
      children.push(child);
    }
    if (children.length > 0) doc[table] = children;
  }
  return { doc, problems };
}
