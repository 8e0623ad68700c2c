import type { Readable } from 'node:stream';

/** How a CSV file's bytes are decoded. */
export type TextEncoding = 'utf-8' | 'latin1';

/**
 * UTF-8 when every byte sequence of the file is valid UTF-8 (a BOM or not), else Latin-1 (decoded
 * as windows-1252, its superset that spreadsheet programs write): docs/import-export.md "Import".
 * Reads the whole stream once and keeps none of it.
 */
export async function detectEncoding(bytes: Readable): Promise<TextEncoding> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of bytes) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return 'utf-8';
  } catch (err) {
    if (err instanceof TypeError) return 'latin1';
    throw err;
  } finally {
    bytes.destroy();
  }
}

/** The delimiters an import file may use. */
const DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * The delimiter of a CSV file, judged from its first record (the header): the candidate that
 * occurs most often outside quotes; a comma when none does.
 */
export function detectDelimiter(start: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of start) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = ',';
  let most = 0;
  for (const [d, n] of counts) {
    if (n > most) {
      best = d;
      most = n;
    }
  }
  return best;
}
