import { sql } from 'kysely';
import { outboxTableStatement } from '../jobs/after-commit-outbox.js';
import type { SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/**
 * The webhook outbox: one row per webhook match, written in the document's transaction and turned
 * into a Webhook Request Log and its delivery job right after the commit (docs/webhooks.md "How a
 * change becomes a request"). Internal tables carry the reserved `__` prefix, so no DocType can
 * name it. Its table is an after-commit outbox's (`outboxTableStatement`: no index, so a row costs
 * the write that triggers it one b-tree page at commit where a log row with its seven indexes cost
 * eight, see docs/benchmarks.md "Jobs and webhooks"). Rows written before the outbox was shared
 * are named by UUID version 7 rather than time and counter; both begin with the time in hex, so
 * they still leave oldest first.
 */
export const OUTBOX_TABLE = '__fw_webhook_outbox';

/**
 * The documents of deliveries not rendered yet (docs/webhooks.md "How a change becomes a
 * request"): the outbox's batch moves each match's document here, keyed by its Webhook Request
 * Log, and the first attempt renders the request from it as the webhook's owner may read it, then
 * drops it. Kept apart from the log, which System Managers read, since the owner may read less.
 */
export const SNAPSHOT_TABLE = '__fw_webhook_snapshot';

/** CREATE TABLE, idempotent (run at every site open, like the other system tables). */
export function outboxTableStatements(dialect: Dialect): SqlStatement[] {
  const type = (spec: Parameters<Dialect['columnType']>[0]) => sql.raw(dialect.columnType(spec));
  return [
    outboxTableStatement(dialect, OUTBOX_TABLE),
    dialect.builder.schema
      .createTable(SNAPSHOT_TABLE)
      .ifNotExists()
      .addColumn('name', type({ kind: 'varchar', length: 64 }), (c) => c.primaryKey())
      .addColumn('doc', type({ kind: 'text' }), (c) => c.notNull())
      .compile(),
  ];
}
