import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { registerEmailAccountController } from './email-account-controller.js';
import { registerFlushJob } from './mail-flush.js';
import { registerMailMethods } from './mail-methods.js';
import { registerSendJob, type SenderDeps } from './mail-sender.js';
import { queueMail, type MailRequest } from './queue-mail.js';

/** What mail is wired into: the site's registries and what sending needs (see SenderDeps). */
export interface MailParts extends SenderDeps {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** The host part of Message-IDs (the site's name). */
  readonly domain: string;
}

/** The mail service other subsystems and apps use: queue a mail in a unit of work. */
export interface MailService {
  queue(ctx: DocContext, mail: MailRequest): Promise<string>;
}

/**
 * Wires mail into a site as openSite opens it (docs/mail.md): the Email Account controller, the
 * send and flush jobs, the queue methods; answers the service that queues mail.
 */
export function registerMail(parts: MailParts): MailService {
  registerEmailAccountController(parts.hooks);
  registerSendJob(parts);
  registerFlushJob(parts);
  registerMailMethods(parts.methods, parts);
  return { queue: (ctx, mail) => queueMail(parts, ctx, mail) };
}
