import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';

/** What a collaboration change tells the people it concerns (docs/collaboration.md "Notifications"). */
export interface CollaborationNotice {
  readonly kind: 'assigned' | 'assignment_cancelled' | 'assignment_closed' | 'followed_document_changed';
  /** Who is told. */
  readonly forUser: string;
  /** Who made the change. */
  readonly fromUser: string;
  readonly doctype: string;
  readonly name: string;
  /** The assignment's description, for assignment notices. */
  readonly description?: string;
}

/**
 * Records a notice inside the change's transaction, so it exists exactly when the change commits.
 * The site's notification channel (a Notification Log) provides it; without one, notices are not kept.
 */
export type CollaborationNotifier = (ctx: DocContext, notice: CollaborationNotice) => Promise<void>;

/** What the collaboration subsystem is wired into (never the whole site; docs/architecture.md). */
export interface CollaborationParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  readonly notify?: CollaborationNotifier;
}
