import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { SESSIONS_TABLE } from '../auth/auth-tables.js';
import { SERIES_TABLE } from '../documents/naming/naming-series.js';
import { SINGLES_TABLE } from '../documents/singles/single-rows.js';

/** One internal table that older versions kept under a DocType-style `tab` name. */
interface MovedTable {
  readonly from: string;
  readonly to: string;
  readonly columns: readonly string[];
  /**
   * Whether rows are carried over when a DocType had adopted the old table. Sessions are not: their
   * ids were readable through that DocType, so every one of them counts as leaked.
   */
  readonly keepWhenAdopted: boolean;
}

/**
 * Up to this version, sessions, Singles values and series counters lived in `tabSessions`,
 * `tabSingles` and `tabSeries`, names a DocType called Sessions, Singles or Series would take as its
 * own table (docs/security.md, "Internal tables"). They now live under the reserved `__` prefix.
 */
const MOVED: readonly MovedTable[] = [
  {
    from: 'tabSessions',
    to: SESSIONS_TABLE,
    columns: ['sid', 'user', 'created', 'last_updated', 'expires_at', 'ip', 'user_agent'],
    keepWhenAdopted: false,
  },
  { from: 'tabSingles', to: SINGLES_TABLE, columns: ['doctype', 'field', 'value'], keepWhenAdopted: true },
  { from: 'tabSeries', to: SERIES_TABLE, columns: ['name', 'current'], keepWhenAdopted: true },
];

/**
 * Moves the rows of the old internal tables into their reserved-name successors, which must exist
 * already (created empty by installCore), then drops the old tables. A table a DocType adopted
 * (it has the DocType's `creation` column) stays with that DocType: only the rows fw wrote there,
 * those without `creation`, are moved out of it (sessions are dropped instead, see MovedTable).
 * Runs at every open; once the old tables are gone it costs one introspection query per table.
 */
export async function moveInternalTables(q: Queryable, dialect: Dialect): Promise<void> {
  const db = dialect.builder;
  for (const table of MOVED) {
    const columns = (await dialect.listColumns(q, table.from)).map((c) => c.name);
    if (!columns.includes(table.columns[0]!)) continue;
    const adopted = columns.includes('creation');
    if (!adopted || table.keepWhenAdopted) {
      let rows = db.selectFrom(table.from).select([...table.columns]);
      if (adopted) rows = rows.where('creation', 'is', null);
      await q.run(
        db
          .insertInto(table.to)
          .columns([...table.columns])
          .expression(rows)
          .compile(),
      );
    }
    if (adopted) await q.run(db.deleteFrom(table.from).where('creation', 'is', null).compile());
    else await q.run(db.schema.dropTable(table.from).compile());
  }
}
