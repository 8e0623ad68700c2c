import type { Row } from '../storage/database.js';
import type { OutputColumn } from './compile-list-query.js';

/** One row as the API returns it: an object keyed by output key, or the values in select order. */
export type ShapedRow = Record<string, unknown> | unknown[];

function value(row: Row, column: OutputColumn): unknown {
  const raw = row[column.column] ?? null;
  return column.convert && raw !== null ? column.convert(raw) : raw;
}

/**
 * Turns driver rows into list output (docs/api.md "Lists"): objects keyed by the output keys with
 * `asDict` (a repeated key keeps the last value, as the reference's dict rows do), else arrays.
 * Every requested column is present, null or not.
 */
export function shapeRows(rows: readonly Row[], columns: readonly OutputColumn[], asDict: boolean): ShapedRow[] {
  return rows.map((row) => shapeRow(row, columns, asDict));
}

/**
 * True when {@link shapeRows} may shape the driver's rows of a statement that selects exactly
 * `columns`, in their order, in place ({@link shapeInPlace}): dict rows keyed by the columns' own
 * names, no key repeated or named `__proto__`. A list page then answers with the rows as read, their
 * values converted where they are, one object a row fewer (docs/benchmarks.md "A list page (b)").
 */
export function shapesInPlace(columns: readonly OutputColumn[], asDict: boolean): boolean {
  if (!asDict) return false;
  const keys = new Set<string>();
  for (const column of columns) {
    if (column.key !== column.column || column.key === '__proto__' || keys.has(column.key)) return false;
    keys.add(column.key);
  }
  return true;
}

/**
 * The driver's rows as {@link shapeRows} shapes them, for columns that {@link shapesInPlace}
 * allows: the same objects, each value turned into its JSON form where it is. The rows must be
 * the caller's own (a statement's fresh rows).
 */
export function shapeInPlace(rows: Row[], columns: readonly OutputColumn[]): Row[] {
  for (const row of rows) {
    for (const column of columns) {
      const raw = row[column.column];
      if (raw === undefined) row[column.column] = null;
      else if (raw !== null && column.convert) row[column.column] = column.convert(raw);
    }
  }
  return rows;
}

/** One row of {@link shapeRows}. */
export function shapeRow(row: Row, columns: readonly OutputColumn[], asDict: boolean): ShapedRow {
  if (!asDict) return columns.map((c) => value(row, c));
  const shaped: Record<string, unknown> = {};
  for (const column of columns) {
    // Assigning `__proto__` would set the prototype: that key (a client may alias a field so) is defined instead.
    if (column.key === '__proto__')
      Object.defineProperty(shaped, column.key, { value: value(row, column), enumerable: true, writable: true, configurable: true });
    else shaped[column.key] = value(row, column);
  }
  return shaped;
}

/**
 * {@link shapeRow} over rows read one at a time from a cursor. A plain iterator rather than an
 * async generator: on a list of every row this runs once per row, and a generator resumption
 * would cost more than the shaping.
 */
export function shapeRowStream(rows: AsyncIterable<Row>, columns: readonly OutputColumn[], asDict: boolean): AsyncIterable<ShapedRow> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<ShapedRow> {
      const source = rows[Symbol.asyncIterator]();
      return {
        async next(): Promise<IteratorResult<ShapedRow>> {
          const step = await source.next();
          return step.done ? { done: true, value: undefined } : { done: false, value: shapeRow(step.value, columns, asDict) };
        },
        async return(): Promise<IteratorResult<ShapedRow>> {
          await source.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
