import type { Row } from '../database.js';

/** Turns one row of values, in column order, into a `{ column: value }` object. */
export type RowBuilder = (values: readonly unknown[]) => Row;

/**
 * A row builder for a statement's result columns. better-sqlite3's object rows look up every
 * column name in V8's string table for every row; reading rows as arrays and building the objects
 * with one object literal per statement shape costs about a third less per statement (see
 * docs/benchmarks.md). Keys are JSON-quoted, and `__proto__` is a computed key so that a column
 * of that name becomes an own property, as in better-sqlite3's rows, never the prototype. A
 * repeated column name keeps its last value, as there.
 */
export function rowBuilder(columns: readonly string[]): RowBuilder {
  const entries = columns.map((column, i) => {
    const key = JSON.stringify(column);
    return `${column === '__proto__' ? `[${key}]` : key}: values[${i}]`;
  });
  return new Function('values', `return { ${entries.join(', ')} };`) as RowBuilder;
}
