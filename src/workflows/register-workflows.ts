import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { AfterCommitOutbox } from '../jobs/after-commit-outbox.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Database } from '../storage/database.js';
import { WORKFLOW_ACTION_OUTBOX } from './action-outbox-table.js';
import { PendingTransitions } from './pending-transitions.js';
import { WorkflowCache } from './workflow-cache.js';
import { applyWorkflowActions, registerWorkflowActions, type DocumentLink, type WorkflowActionEntry, type WorkflowActionMailer } from './workflow-actions.js';
import { registerWorkflowController } from './workflow-controller.js';
import { registerWorkflowGuard } from './workflow-guard.js';
import { registerWorkflowMethods } from './workflow-methods.js';

/** What workflows are wired into: the site's registries and the document service they save through. */
export interface WorkflowParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** Queues a Workflow Action mail in the unit; without it, Send Email Alert mails nobody. */
  readonly mail?: WorkflowActionMailer;
  /** The link a Workflow Action mail gives to the document. */
  readonly link: DocumentLink;
  readonly db: Database;
  /** The queue whose workers flush and sweep the Workflow Action outbox (a job source). */
  readonly jobs: JobQueue;
  /** Runs `work` in a write transaction of the site as the Administrator (an outbox batch). */
  readonly asAdministrator: (work: (ctx: DocContext) => Promise<number>) => Promise<number>;
  /** Where a failed outbox batch is reported (the site's logger). */
  readonly report: (err: unknown) => void;
}

/** How long the Workflow Action outbox collects commits before a batch: short, since a user may list actions right after a save. */
const ACTION_BATCH_MS = 50;

/**
 * Wires workflows into a site as openSite opens it (docs/workflows.md): the Workflow controller, the
 * guard on every DocType's writes, the workflow methods and the Workflow Actions.
 */
export function registerWorkflows(parts: WorkflowParts): void {
  const cache = new WorkflowCache(parts.documents);
  const pending = new PendingTransitions();
  registerWorkflowController(parts.hooks, parts.documents);
  registerWorkflowGuard(parts.hooks, cache, pending);
  registerWorkflowMethods(parts.methods, { documents: parts.documents, cache, pending });
  const deps = { documents: parts.documents, cache, mail: parts.mail, link: parts.link };
  const outbox = new AfterCommitOutbox<WorkflowActionEntry, DocContext>({
    db: parts.db,
    table: WORKFLOW_ACTION_OUTBOX,
    transaction: parts.asAdministrator,
    apply: (ctx, entries) => applyWorkflowActions(ctx, deps, entries),
    // The actions' mails are jobs of the mail queue.
    applied: () => parts.jobs.wake(),
    report: parts.report,
    batchMs: ACTION_BATCH_MS,
    inOrder: true,
  });
  parts.jobs.addSource(outbox);
  registerWorkflowActions(parts.hooks, deps, outbox);
}
