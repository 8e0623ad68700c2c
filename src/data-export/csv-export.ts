import { Readable, pipeline, type Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExportColumn } from './export-columns.js';
import type { ExportLine } from './export-rows.js';
import { neutraliseFormula } from './formula-guard.js';

/** The reference's first heading, before the column labels. */
export const SERIAL_HEADING = 'Sr';

/**
 * The CSV text of an export (docs/import-export.md "Export"): a UTF-8 byte order mark (so
 * spreadsheets read the text as UTF-8), the heading row, then one record per line; text that would
 * be read as a formula is made inert. csv-stringify quotes what needs quoting and is pulled only as
 * fast as the response drains.
 */
export function csvExport(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>, delimiter: string): Transform {
  const records = Readable.from(csvRecords(columns, lines), { objectMode: true });
  const out = stringify({ bom: true, delimiter, record_delimiter: '\r\n' });
  // An error on either side destroys both: the response is cut short and the cursor closed.
  return pipeline(records, out, () => undefined);
}

async function* csvRecords(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>): AsyncGenerator<string[]> {
  yield [SERIAL_HEADING, ...columns.map((c) => neutraliseFormula(c.heading))];
  for await (const line of lines) yield [String(line.sr), ...line.values.map((v, i) => csvCell(v, columns[i]))];
}

function csvCell(value: unknown, column: ExportColumn | undefined): string {
  if (value === null || value === undefined) return '';
  // A number the driver returned as text (a decimal) is a number, not a formula.
  if (column?.kind === 'number' && typeof value === 'string' && Number.isFinite(Number(value))) return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return neutraliseFormula(value);
  return neutraliseFormula(JSON.stringify(value));
}
