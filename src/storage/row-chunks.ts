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
 * would cost PostgreSQL a round trip per row. `build` gets the rows with the given `columns`; each
 * row's values are bound in that order.
 */
export function rowChunks<C extends string>(
  columns: readonly C[],
  build: (rows: Record<C, unknown>[]) => SqlStatement,
): RowChunks<Readonly<Record<C, unknown>>> {
  const width = columns.length;
  const shapes = new Map<number, StatementShape<unknown[]>>();
  const shape = (size: number) => {
    let made = shapes.get(size);
    if (!made) {
      made = statementShape(size * width, (...slots: unknown[]) =>
        build(Array.from({ length: size }, (_, r) => Object.fromEntries(columns.map((c, i) => [c, slots[r * width + i]])) as Record<C, unknown>)),
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
        for (let r = from; r < from + size; r++) for (const c of columns) bound.push(rows[r]![c]);
        statements.push(shape(size)(...bound));
        from += size;
      }
    }
    return statements;
  };
}
