import type { ExportColumn } from './export-columns.js';

/** One exported line: its "Sr" number and one value per column, as the list query shaped it. */
export interface ExportLine {
  readonly sr: number;
  readonly values: readonly unknown[];
}

/**
 * The lines of an export from a cursor over list rows (arrays in column order), read one at a
 * time as the writer asks for them, so the response's backpressure reaches the database cursor.
 * `first` was read already (an error there is still an ordinary JSON error). Closing the generator
 * early (the client left) closes the cursor.
 */
export async function* exportLines(first: IteratorResult<unknown>, rows: AsyncIterator<unknown>, columns: readonly ExportColumn[]): AsyncGenerator<ExportLine> {
  let sr = 0;
  try {
    for (let next = first; !next.done; next = await rows.next()) {
      const values = next.value as unknown[];
      if (values.length !== columns.length) throw new Error(`an export row has ${values.length} values for ${columns.length} columns`);
      yield { sr: ++sr, values };
    }
  } finally {
    await rows.return?.();
  }
}
