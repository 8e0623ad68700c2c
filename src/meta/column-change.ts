import type { ColumnKind, ColumnSpec } from '../storage/dialect.js';

/**
 * Column kinds a stored column can turn into without converting what it holds: text kinds take
 * any shorter text (PostgreSQL widens the column in place; SQLite needs nothing).
 */
const HOLDS: Partial<Record<ColumnKind, readonly ColumnKind[]>> = {
  varchar: ['text', 'json'],
  text: ['json'],
  json: ['text'],
};

/**
 * True when a column made for `from` can keep serving a field whose type now wants `to`. A schema
 * change never converts or drops data, so other changes (text to number, number to date) are
 * refused rather than left to each engine: PostgreSQL would keep the old type and refuse new
 * values, SQLite would keep the old values beside new ones of another kind.
 */
export function columnCanBecome(from: ColumnSpec, to: ColumnSpec): boolean {
  return from.kind === to.kind || (HOLDS[from.kind]?.includes(to.kind) ?? false);
}
