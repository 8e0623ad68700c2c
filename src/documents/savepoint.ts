import type { Queryable } from '../storage/database.js';
import type { UnitOfWork } from '../storage/unit-of-work.js';

let counter = 0;

/**
 * Runs `work` inside a SAVEPOINT of the current transaction: when it throws, only its own writes are
 * undone and the transaction stays usable (a failed statement would otherwise abort a PostgreSQL
 * transaction). Works the same on SQLite and PostgreSQL. With the transaction's `unit`, what the
 * undone work asked to run after the commit is forgotten and what it asked to run after a rollback
 * runs now.
 */
export async function withSavepoint<T>(q: Queryable, work: () => Promise<T>, unit?: UnitOfWork): Promise<T> {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const name = `fw_sp_${counter}`;
  const mark = unit?.mark();
  await q.run({ sql: `savepoint ${name}`, parameters: [] });
  try {
    const result = await work();
    await q.run({ sql: `release savepoint ${name}`, parameters: [] });
    return result;
  } catch (err) {
    await q.run({ sql: `rollback to savepoint ${name}`, parameters: [] });
    await q.run({ sql: `release savepoint ${name}`, parameters: [] });
    if (unit && mark) await unit.rolledBackTo(mark);
    throw err;
  }
}
