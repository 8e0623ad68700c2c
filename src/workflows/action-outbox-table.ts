import { outboxTableStatement } from '../jobs/after-commit-outbox.js';
import type { SqlStatement } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';

/**
 * The outbox of Workflow Action changes (docs/workflows.md "Workflow Actions"): one row per write
 * that moved a document under an active workflow, turned into actions right after the commit.
 */
export const WORKFLOW_ACTION_OUTBOX = '__fw_workflow_action_outbox';

/** CREATE TABLE, idempotent (run at every site open, like the other system tables). */
export function actionOutboxTableStatement(dialect: Dialect): SqlStatement {
  return outboxTableStatement(dialect, WORKFLOW_ACTION_OUTBOX);
}
