import { Readable } from 'node:stream';
import { stringify, type Options } from 'csv-stringify/sync';
import type { ExportColumn } from './export-columns.js';
import type { ExportLine } from './export-rows.js';
import { neutraliseFormula } from './formula-guard.js';

/** The reference's first heading, before the column labels. */
export const SERIAL_HEADING = 'Sr';
/** Records stringified together: one write to the socket per batch rather than per line. */
const BATCH = 500;

/**
 * The CSV text of an export (docs/import-export.md "Export"): a UTF-8 byte order mark (so
 * spreadsheets read the text as UTF-8), the heading row, then one record per line; text that would
 * be read as a formula is made inert. csv-stringify quotes what needs quoting, a batch of lines at
 * a time; the next batch is read from the cursor only when the response wants more.
 */
export function csvExport(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>, delimiter: string): Readable {
  return Readable.from(csvChunks(columns, lines, { delimiter, record_delimiter: '\r\n' }), { objectMode: false });
}

async function* csvChunks(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>, options: Options): AsyncGenerator<string> {
  let batch: string[][] = [[SERIAL_HEADING, ...columns.map((c) => neutraliseFormula(c.heading))]];
  let first = true;
  for await (const line of lines) {
    batch.push([String(line.sr), ...line.values.map((v, i) => csvCell(v, columns[i]))]);
    if (batch.length >= BATCH) {
      yield stringify(batch, { ...options, bom: first });
      first = false;
      batch = [];
    }
  }
  yield stringify(batch, { ...options, bom: first });
}

function csvCell(value: unknown, column: ExportColumn | undefined): string {
  if (value === null || value === undefined) return '';
  // A number the driver returned as text (a decimal) is a number, not a formula.
  if (column?.kind === 'number' && typeof value === 'string' && Number.isFinite(Number(value))) return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return neutraliseFormula(value);
  return neutraliseFormula(JSON.stringify(value));
}
