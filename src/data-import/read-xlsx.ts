import type { Readable } from 'node:stream';
import { ValidationError } from '../errors/index.js';
import type { Cell, SourceRow } from './cells.js';

/** A cell value of exceljs as an import cell: rich text joined, a formula's result, a link's text. */
function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value;
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) return (v.richText as { text?: string }[]).map((r) => r.text ?? '').join('');
    if ('result' in v) return toCell(v.result);
    if (typeof v.text === 'string') return v.text;
    if ('error' in v) return null;
  }
  return String(value);
}

/**
 * The rows of the first worksheet of an XLSX file, streamed with exceljs's reader (shared strings
 * and styles are kept, so a cell formatted as a date arrives as a Date).
 */
export async function* xlsxRows(open: () => Promise<Readable>): AsyncGenerator<SourceRow> {
  // Imported by the first Excel import: about 7 MB of heap (docs/benchmarks.md "Modules loaded on first use").
  const { default: ExcelJS } = await import('exceljs');
  const input = await open();
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'emit',
  });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = (row.values as unknown[]) ?? [];
        // exceljs counts columns from 1: index 0 is always empty.
        const cells: Cell[] = [];
        for (let i = 1; i < values.length; i++) cells.push(toCell(values[i]));
        yield { number: row.number, cells };
      }
      return;
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw new ValidationError(`The file could not be read as an Excel workbook: ${(err as Error).message}`);
  } finally {
    input.destroy();
  }
}
