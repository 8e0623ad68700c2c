import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { PendingTransitions } from './pending-transitions.js';
import { WorkflowCache } from './workflow-cache.js';
import { registerWorkflowActions, type DocumentLink, type WorkflowActionMailer } from './workflow-actions.js';
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
}

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
  registerWorkflowActions(parts.hooks, { documents: parts.documents, cache, mail: parts.mail, link: parts.link });
}
