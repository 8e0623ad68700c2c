import { sql } from 'kysely';
import type { Meta } from '../../meta/meta.js';
import type { SqlStatement } from '../../storage/database.js';
import type { Dialect } from '../../storage/dialect.js';
import { statementShape, type StatementShape } from '../../storage/statement-shape.js';

/**
 * Names bound by one lookup statement. Far below either engine's limit on bound values, and a
 * document's links seldom come near it: a save that checks more reads them in several statements.
 */
export const NAMES_PER_STATEMENT = 500;

/** The names to look up, by the DocType whose table holds them. */
export type DocstatusLookups = ReadonlyMap<Meta, ReadonlySet<string>>;

/** One row of a lookup statement: which of the statement's tables (`t`), the name, its docstatus. */
interface LookupRow {
  t: number | string;
  name: string;
  docstatus: number | string | null;
}

/** Splits the lookups into statements of at most {@link NAMES_PER_STATEMENT} names, tables in order. */
function chunk(lookups: DocstatusLookups): Array<Array<[Meta, string[]]>> {
  const statements: Array<Array<[Meta, string[]]>> = [];
  let current: Array<[Meta, string[]]> = [];
  let room = NAMES_PER_STATEMENT;
  for (const [meta, set] of lookups) {
    const names = [...set];
    for (let at = 0; at < names.length; ) {
      if (room === 0) {
        statements.push(current);
        current = [];
        room = NAMES_PER_STATEMENT;
      }
      const part = names.slice(at, at + room);
      current.push([meta, part]);
      room -= part.length;
      at += part.length;
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

/** Shapes by dialect and by the statement's tables and name counts; only table names shape the text. */
const shapes = new WeakMap<Dialect, Map<string, StatementShape<string[]>>>();
/** Distinct shapes kept per dialect: saves repeat, so a few shapes serve nearly every one. */
const SHAPES_KEPT = 256;

function shapeFor(dialect: Dialect, tables: ReadonlyArray<[Meta, string[]]>): StatementShape<string[]> {
  let byKey = shapes.get(dialect);
  if (!byKey) shapes.set(dialect, (byKey = new Map()));
  const key = tables.map(([meta, names]) => `${meta.tableName}\u0000${names.length}`).join('\u0001');
  let shape = byKey.get(key);
  if (!shape) {
    const total = tables.reduce((n, [, names]) => n + names.length, 0);
    shape = statementShape(total, (...slots: string[]) => {
      let at = 0;
      const selects = tables.map(([meta, names], t) => {
        const bound = slots.slice(at, (at += names.length));
        return dialect.builder
          .selectFrom(meta.tableName)
          .select([sql.lit(t).as('t'), 'name', 'docstatus'])
          .where('name', 'in', bound);
      });
      return selects
        .slice(1)
        .reduce((all, next) => all.unionAll(next), selects[0])
        .compile();
    });
    if (byKey.size >= SHAPES_KEPT) byKey.clear();
    byKey.set(key, shape);
  }
  return shape;
}

/**
 * The statements that read the docstatus of every looked-up name: one `select` per table, joined
 * by `union all`, each row tagged with its table's place in the statement (the same name may exist
 * in two tables). Every name is a bound value.
 */
export function docstatusStatements(dialect: Dialect, lookups: DocstatusLookups): Array<{ statement: SqlStatement; metas: Meta[] }> {
  return chunk(lookups).map((tables) => ({
    statement: shapeFor(dialect, tables)(...tables.flatMap(([, names]) => names)),
    metas: tables.map(([meta]) => meta),
  }));
}

/** Docstatus by DocType and name, from the rows of {@link docstatusStatements}; absent names are undefined. */
export class FoundDocstatuses {
  readonly #byMeta = new Map<Meta, Map<string, number>>();

  add(metas: readonly Meta[], rows: readonly object[]): void {
    for (const row of rows as LookupRow[]) {
      const meta = metas[Number(row.t)];
      let names = this.#byMeta.get(meta);
      if (!names) this.#byMeta.set(meta, (names = new Map()));
      names.set(String(row.name), Number(row.docstatus ?? 0));
    }
  }

  of(meta: Meta, name: string): number | undefined {
    return this.#byMeta.get(meta)?.get(name);
  }
}
