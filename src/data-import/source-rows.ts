import type { Readable } from 'node:stream';
import { ValidationError } from '../errors/index.js';
import type { FileStore } from '../files/file-store.js';
import { parseFileUrl } from '../files/file-url.js';
import type { SourceRow } from './cells.js';
import { csvRows } from './read-csv.js';
import { xlsxRows } from './read-xlsx.js';

/** The kinds of file an import reads. */
export type SourceKind = 'csv' | 'xlsx';

/** The kind of an import file by its name's extension; anything else is refused. */
export function sourceKind(fileUrl: string): SourceKind {
  const lower = fileUrl.toLowerCase();
  if (lower.endsWith('.csv') || lower.endsWith('.txt')) return 'csv';
  if (lower.endsWith('.xlsx')) return 'xlsx';
  throw new ValidationError('Import files must be CSV (.csv) or Excel (.xlsx)');
}

/** An import file: its store key and kind, and a way to read its rows (as often as needed). */
export interface ImportSource {
  readonly fileUrl: string;
  readonly kind: SourceKind;
  rows(): AsyncGenerator<SourceRow>;
}

/** The import file stored at `fileUrl` (a `/files/…` or `/private/files/…` URL). */
export function importSource(files: FileStore, fileUrl: string): ImportSource {
  const local = parseFileUrl(fileUrl);
  if (!local) throw new ValidationError(`${fileUrl} is not a file stored by this site`);
  const kind = sourceKind(fileUrl);
  const open = async (): Promise<Readable> => {
    const opened = await files.open(local.key);
    if (!opened) throw new ValidationError(`The import file ${fileUrl} is missing`);
    return opened.stream;
  };
  return {
    fileUrl,
    kind,
    async *rows() {
      try {
        yield* kind === 'csv' ? csvRows(open) : xlsxRows(open);
      } catch (err) {
        // csv-parse reports malformed input with codes such as CSV_INVALID_CLOSING_QUOTE.
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('CSV_')) throw new ValidationError(`The file could not be read as CSV: ${(err as Error).message}`);
        throw err;
      }
    },
  };
}
