import { sql } from 'kysely';
import type { Queryable, SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/** The last slot each scheduled handler ran for: the claim that makes a slot run once across processes. */
export const SCHEDULE_TABLE = '__fw_schedule';

/** CREATE TABLE, idempotent. */
export function scheduleTableStatements(dialect: Dialect): SqlStatement[] {
  const type = (spec: Parameters<Dialect['columnType']>[0]) => sql.raw(dialect.columnType(spec));
  return [
    dialect.builder.schema
      .createTable(SCHEDULE_TABLE)
      .ifNotExists()
      .addColumn('handler', type({ kind: 'varchar', length: 255 }), (c) => c.primaryKey())
      .addColumn('frequency', type({ kind: 'varchar', length: 255 }), (c) => c.notNull())
      .addColumn('last_slot', type({ kind: 'bigint' }), (c) => c.notNull())
      .compile(),
  ];
}

/**
 * First sight of a handler: its current slot counts as done (a newly added schedule waits for its
 * next slot, as the reference's new Scheduled Job Types do). Answers false when the row existed.
 */
export async function initialiseSlot(q: Queryable, dialect: Dialect, handler: string, frequency: string, slot: number): Promise<boolean> {
  const { changes } = await q.run(
    dialect.builder
      .insertInto(SCHEDULE_TABLE)
      .values({ handler, frequency, last_slot: slot })
      .onConflict((oc) => oc.column('handler').doNothing())
      .compile(),
  );
  return changes > 0;
}

/**
 * Claims `slot` for `handler`: one atomic conditional update, so of all the processes (on every
 * machine) that see the slot due, exactly one gets `true`. A slot later than several missed ones
 * claims them all at once: a schedule missed while everything was down runs once.
 */
export async function claimSlot(q: Queryable, dialect: Dialect, handler: string, frequency: string, slot: number): Promise<boolean> {
  const { changes } = await q.run(
    dialect.builder.updateTable(SCHEDULE_TABLE).set({ last_slot: slot, frequency }).where('handler', '=', handler).where('last_slot', '<', slot).compile(),
  );
  return changes > 0;
}
