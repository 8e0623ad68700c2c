import type { SqlStatement } from './database.js';
import { statementShape, type StatementShape } from './statement-shape.js';

/** Rows per statement, largest first: 256 rows of 20 columns stay far below both engines' parameter limits. */
const CHUNK_SIZES = [256, 64, 16, 4, 1] as const;

/** Multi-row statements for any number of rows, from a handful of shapes compiled once. */
export type RowChunks<R> = (rows: readonly R[]) => SqlStatement[];

/**
 * Writes many rows with multi-row statements of a few fixed sizes (256, 64, 16, 4 and 1 rows), each
 * compiled once by {@link statementShape}: a batch of 300 rows is 256 + 16 + 16 + 4 + 4 + 4. One
 * statement sized to each batch would go through the query builder every time and, on SQLite, be
 * prepared anew and push hot statements out of the connection's statement cache; a row at a time
 * would cost PostgreSQL a round trip per row. `build` gets one array of bound values per row,
 * `columns` of them, in the order `values` answers them.
 */
export function rowChunks<R>(
  columns: number,
  values: (row: R) => readonly unknown[],
  build: (rows: unknown[][]) => SqlStatement,
): RowChunks<R> {
  const shapes = new Map<number, StatementShape<unknown[]>>();
  const shape = (size: number) => {
    let made = shapes.get(size);
    if (!made) {
      made = statementShape(size * columns, (...slots: unknown[]) =>
        build(Array.from({ length: size }, (_, r) => slots.slice(r * columns, (r + 1) * columns))),
      );
      shapes.set(size, made);
    }
    return made;
  };
  return (rows) => {
    const statements: SqlStatement[] = [];
    let from = 0;
    for (const size of CHUNK_SIZES) {
      while (rows.length - from >= size) {
        const bound: unknown[] = [];
        for (const row of rows.slice(from, from + size)) {
          const cells = values(row);
          if (cells.length !== columns) throw new Error(`rowChunks: a row has ${cells.length} values, not ${columns}`);
          bound.push(...cells);
        }
        statements.push(shape(size)(...bound));
        from += size;
      }
    }
    return statements;
  };
}
