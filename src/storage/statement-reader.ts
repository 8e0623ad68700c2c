import type { Database, Queryable, SqlStatement } from './database.js';

/**
 * A Queryable that holds no connection: each statement is a read unit of its own
 * (`Database.readOne`), so it costs no transaction and never keeps a connection while its caller
 * waits. For work that runs one statement, or whose statements need not share a snapshot.
 */
export function statementReader(db: Database): Queryable {
  return {
    all: (statement) => db.readOne(statement),
    // A write is refused by the database, as in any read unit.
    run: async (statement) => {
      await db.readOne(statement);
      return { changes: 0 };
    },
    // No connection outlives one statement here, so rows come from one fetch rather than a cursor.
    async *iterate<T>(statement: SqlStatement) {
      yield* await db.readOne<T>(statement);
    },
  };
}
