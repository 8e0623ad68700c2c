import { Readable } from 'node:stream';
import type { CellKind, ExportColumn } from './export-columns.js';
import type { ExportLine } from './export-rows.js';
import { SERIAL_HEADING } from './csv-export.js';
import {
  CONTENT_TYPES,
  DATE_STYLE,
  DATETIME_STYLE,
  ROOT_RELS,
  SHEET_HEAD,
  SHEET_TAIL,
  STYLES,
  WORKBOOK_RELS,
  escapeXml,
  sheetName,
  workbookXml,
} from './xlsx-parts.js';

/** Sheet XML is handed to the zip in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;
/** Days from the spreadsheet epoch (1899-12-30) to 1970-01-01. */
const UNIX_EPOCH_SERIAL = 25569;
const DAY_MS = 86_400_000;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

/**
 * The XLSX file of an export (docs/import-export.md "Export"): one sheet written as the rows
 * arrive, numbers as numbers, dates and datetimes as date serials with a date format, text as
 * inline strings (never formulas, so text starting with `=` stays text). The sheet is a stream the
 * zip pulls from only as fast as the response drains, so memory stays flat however many rows
 * there are. (exceljs's WorkbookWriter buffers without bound; see docs/import-export.md.) archiver
 * is imported by the first XLSX export (docs/benchmarks.md "Modules loaded on first use").
 */
export async function xlsxExport(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>, title: string): Promise<Readable> {
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const sheet = Readable.from(sheetXml(columns, lines), { objectMode: false });
  // A failing cursor aborts the file (the client sees a cut connection, never a short file that looks whole).
  sheet.once('error', (err) => zip.destroy(err));
  zip.once('close', () => sheet.destroy());
  zip.append(CONTENT_TYPES, { name: '[Content_Types].xml' });
  zip.append(ROOT_RELS, { name: '_rels/.rels' });
  zip.append(workbookXml(sheetName(title)), { name: 'xl/workbook.xml' });
  zip.append(WORKBOOK_RELS, { name: 'xl/_rels/workbook.xml.rels' });
  zip.append(STYLES, { name: 'xl/styles.xml' });
  zip.append(sheet, { name: 'xl/worksheets/sheet1.xml' });
  zip.finalize().catch(() => undefined);
  return zip;
}

async function* sheetXml(columns: readonly ExportColumn[], lines: AsyncIterable<ExportLine>): AsyncGenerator<string> {
  const letters = [SERIAL_HEADING, ...columns].map((_, i) => columnLetters(i));
  const kinds: CellKind[] = ['number', ...columns.map((c) => c.kind)];
  let chunk = SHEET_HEAD + headingRow([SERIAL_HEADING, ...columns.map((c) => c.heading)], letters);
  let r = 1;
  for await (const line of lines) {
    r++;
    let row = `<row r="${r}">`;
    const values = [line.sr, ...line.values];
    for (let i = 0; i < values.length; i++) row += cell(values[i], kinds[i], `${letters[i]}${r}`);
    chunk += row + '</row>';
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + SHEET_TAIL;
}

function headingRow(headings: readonly string[], letters: readonly string[]): string {
  return `<row r="1">${headings.map((h, i) => textCell(h, `${letters[i]}1`)).join('')}</row>`;
}

function cell(value: unknown, kind: CellKind | undefined, ref: string): string {
  if (value === null || value === undefined || value === '') return '';
  if (kind === 'number') {
    const n = typeof value === 'number' ? value : Number(value);
    if (Number.isFinite(n)) return `<c r="${ref}"><v>${n}</v></c>`;
  }
  if ((kind === 'date' || kind === 'datetime') && typeof value === 'string') {
    const serial = dateSerial(value);
    if (serial !== undefined) return `<c r="${ref}" s="${kind === 'date' ? DATE_STYLE : DATETIME_STYLE}"><v>${serial}</v></c>`;
  }
  return textCell(typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value), ref);
}

function textCell(text: string, ref: string): string {
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

/**
 * A stored date (`YYYY-MM-DD`) or datetime (`YYYY-MM-DD HH:MM:SS[.ffffff]`, the site's wall
 * clock) as a spreadsheet serial: days since 1899-12-30, the time as the fraction of the day.
 */
export function dateSerial(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.round(Number(`0.${frac || '0'}`) * 1000));
  return Number.isFinite(ms) ? ms / DAY_MS + UNIX_EPOCH_SERIAL : undefined;
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let out = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}
