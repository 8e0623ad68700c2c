import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Download } from '../rpc/method-registry.js';
import { cellText, isEmptyCell, type SourceRow } from './cells.js';
import type { ImportSource } from './source-rows.js';

/**
 * `download_errored_template`: the file's header and the rows of every document that failed, as
 * CSV in the file's own columns, so they can be corrected and imported again. Streamed: the file
 * is read once, row by row.
 */
export function erroredRowsFile(source: ImportSource, failedRows: ReadonlySet<number>, title: string): Download {
  async function* rows(): AsyncGenerator<string[]> {
    let header = true;
    for await (const row of source.rows() as AsyncGenerator<SourceRow>) {
      if (header) {
        if (row.cells.every((c) => isEmptyCell(c))) continue;
        header = false;
        yield row.cells.map((c) => cellText(c));
        continue;
      }
      if (failedRows.has(row.number)) yield row.cells.map((c) => cellText(c));
    }
  }
  // pipeline, not pipe: a file that fails to read ends the response instead of leaving it open.
  const body = pipeline(Readable.from(rows()), stringify(), () => {});
  return { fileName: `${title}.csv`, contentType: 'text/csv; charset=utf-8', body };
}
