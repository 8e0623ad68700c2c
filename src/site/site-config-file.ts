import { readFile } from 'node:fs/promises';

/** A problem in site_config.json, with what to do about it. */
export class SiteConfigError extends Error {}

/** Line and column (both from 1) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * Reads site_config.json as a JSON object. A missing file is "no site here"; a file that is not
 * JSON names the line and column where it breaks, since the site exists and only needs that fixed
 * (docs/configuration.md).
 */
export async function readConfigObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SiteConfigError(`No site here: ${file} does not exist. Create a site with \`fw new-site <dir>\`.`);
    throw new SiteConfigError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position ? lineAndColumn(text, Number(position[1])) : text.trim() === '' ? { line: 1, column: 1 } : undefined;
    const at = where ? ` at line ${where.line}, column ${where.column}` : '';
    const detail = message.replace(/\s*\(line \d+ column \d+\)$/, '').replace(/ in JSON at position \d+.*$/, '');
    throw new SiteConfigError(`${file} is not valid JSON${at}: ${detail}. Fix that line (the site itself is untouched).`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new SiteConfigError(`${file} must hold a JSON object`);
  return raw as Record<string, unknown>;
}

/** Edit distance, for "did you mean" on a misspelt key. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/**
 * One warning per key of `raw` that fw does not read (a misspelt `max_file_sise` would otherwise
 * be ignored without a word), naming the closest known key when one is near.
 */
export function unknownKeyWarnings(raw: Record<string, unknown>, known: ReadonlySet<string>, file: string): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const candidate of known) {
      const d = distance(key.toLowerCase(), candidate);
      if (d < bestDistance) [best, bestDistance] = [candidate, d];
    }
    const hint = best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 4)) ? ` (did you mean "${best}"?)` : '';
    warnings.push(`${file}: unknown key "${key}"${hint} is ignored; docs/configuration.md lists the keys fw reads`);
  }
  return warnings;
}
