import type { Row } from '../database.js';
import { objectLiteralKey } from '../object-literal-key.js';

/** Turns one row of values, in column order, into a `{ column: value }` object. */
export type RowBuilder = (values: readonly unknown[]) => Row;

/**
 * A row builder for a statement's result columns. better-sqlite3's object rows look up every
 * column name in V8's string table for every row; reading rows as arrays and building the objects
 * with one object literal per statement shape costs about a third less per statement (see
 * docs/benchmarks.md). A column named `__proto__` becomes an own property, as in better-sqlite3's
 * rows, and a repeated column name keeps its last value, as there.
 */
export function rowBuilder(columns: readonly string[]): RowBuilder {
  const entries = columns.map((column, i) => `${objectLiteralKey(column)}: values[${i}]`);
  return new Function('values', `return { ${entries.join(', ')} };`) as RowBuilder;
}
