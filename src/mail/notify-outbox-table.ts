import { outboxTableStatement } from '../jobs/after-commit-outbox.js';
import type { SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/**
 * The outbox of matched Email notifications (docs/mail.md "Notifications"): one row per match,
 * written in the write's transaction and turned into notify jobs right after the commit.
 */
export const NOTIFY_OUTBOX = '__fw_notify_outbox';

/** CREATE TABLE, idempotent (run at every site open, like the other system tables). */
export function notifyOutboxTableStatement(dialect: Dialect): SqlStatement {
  return outboxTableStatement(dialect, NOTIFY_OUTBOX);
}
