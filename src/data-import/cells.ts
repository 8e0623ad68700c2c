/**
 * One cell of an import file as its reader gives it: text from CSV; from XLSX also numbers,
 * booleans and dates (a date cell stays a date, docs/import-export.md "Import").
 */
export type Cell = string | number | boolean | Date | null;

/** One row of the file: its number as a spreadsheet shows it (the header is row 1) and its cells. */
export interface SourceRow {
  readonly number: number;
  readonly cells: readonly Cell[];
}

/** True for a cell that holds nothing (blank text counts as nothing). */
export function isEmptyCell(cell: Cell | undefined): boolean {
  return cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
}

/** A cell as text, for headers, previews and the errored-rows file (dates as ISO). */
export function cellText(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date)
    return Number.isNaN(cell.getTime())
      ? ''
      : cell
          .toISOString()
          .replace('T', ' ')
          .replace(/\.000Z$|Z$/, '')
          .replace(/ 00:00:00$/, '');
  return String(cell);
}
