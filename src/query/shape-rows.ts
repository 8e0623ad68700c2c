import type { Row } from '../storage/database.js';
import type { OutputColumn } from './compile-list-query.js';

/** One row as the API returns it: an object keyed by output key, or the values in select order. */
export type ShapedRow = Record<string, unknown> | unknown[];

function value(row: Row, column: OutputColumn): unknown {
  const raw = row[column.column] ?? null;
  return column.convert && raw !== null ? column.convert(raw) : raw;
}

/**
 * Turns driver rows into list output (reference §7.5): objects keyed by the output keys with
 * `asDict` (a repeated key keeps the last value, as the reference's dict rows do), else arrays.
 * Every requested column is present, null or not.
 */
export function shapeRows(rows: readonly Row[], columns: readonly OutputColumn[], asDict: boolean): ShapedRow[] {
  if (!asDict) return rows.map((row) => columns.map((c) => value(row, c)));
  // fromEntries defines own properties, so even a key like `__proto__` stays an ordinary key.
  return rows.map((row) => Object.fromEntries(columns.map((c) => [c.key, value(row, c)])));
}
