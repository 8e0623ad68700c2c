import { DataError } from '../errors/index.js';

/** The file types of the reference's `file_format_type`. */
export type ExportFormat = 'CSV' | 'Excel';

/** An export request's arguments made sure of (docs/import-export.md "Export"). */
export interface ExportRequest {
  readonly doctype: string;
  readonly format: ExportFormat;
  /** The file name without its extension. */
  readonly title: string;
  readonly delimiter: string;
  /** The list arguments that choose and order the rows (columns are decided by export-columns.ts). */
  readonly listArgs: Record<string, unknown>;
}

/** Reads the reference's export_query arguments. */
export function exportRequest(args: Readonly<Record<string, unknown>>): ExportRequest {
  const doctype = String(args.doctype);
  return {
    doctype,
    format: exportFormat(args.file_format_type),
    title: fileTitle(args.title, doctype),
    delimiter: delimiterOf(args.csv_delimiter),
    listArgs: {
      filters: withSelectedItems(args.filters, args.selected_items),
      ...(args.or_filters !== undefined && args.or_filters !== null ? { or_filters: args.or_filters } : {}),
      ...(typeof args.order_by === 'string' && args.order_by.trim() !== '' ? { order_by: args.order_by } : {}),
      as_dict: 0,
      limit_page_length: 0,
    },
  };
}

function exportFormat(value: unknown): ExportFormat {
  if (value === undefined || value === null || value === '') return 'CSV';
  const text = String(value).toLowerCase();
  if (text === 'csv') return 'CSV';
  if (text === 'excel' || text === 'xlsx') return 'Excel';
  throw new DataError(`file_format_type must be CSV or Excel, not ${String(value).slice(0, 40)}`);
}

/** The title as a file name: path separators and control characters replaced, at most 100 characters. */
function fileTitle(value: unknown, doctype: string): string {
  const text =
    typeof value === 'string'
      ? value
          .replace(/[/\\\u0000-\u001f\u007f]/g, '_')
          .trim()
          .slice(0, 100)
      : '';
  return text === '' ? doctype : text;
}

function delimiterOf(value: unknown): string {
  if (value === undefined || value === null || value === '') return ',';
  const text = String(value);
  if (text === '\\t') return '\t';
  if (text.length !== 1 || /["\r\n]/.test(text)) throw new DataError('csv_delimiter must be one character other than a quote or a line break');
  return text;
}

/**
 * `selected_items` (names) narrow the export to those documents, as the reference turns them into
 * `name in (…)` alongside the other filters.
 */
function withSelectedItems(filters: unknown, selected: unknown): unknown {
  if (selected === undefined || selected === null || selected === '') return filters ?? [];
  if (!Array.isArray(selected) || selected.some((s) => typeof s !== 'string')) throw new DataError('selected_items must be a list of names');
  const byName = ['name', 'in', selected];
  if (filters === undefined || filters === null || filters === '') return [byName];
  if (Array.isArray(filters)) return [...filters, byName];
  if (typeof filters === 'object') {
    return [...Object.entries(filters).map(([field, v]) => (Array.isArray(v) ? [field, ...v] : [field, '=', v])), byName];
  }
  throw new DataError('filters must be a list or an object');
}
