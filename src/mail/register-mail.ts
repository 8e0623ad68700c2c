import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { FileStore } from '../files/file-store.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { sendFromApp, type AppMailArgs } from './app-mail.js';
import { registerEmailAccountController } from './email-account-controller.js';
import { registerFlushJob } from './mail-flush.js';
import { registerMailMethods } from './mail-methods.js';
import { registerSendJob, type SenderDeps } from './mail-sender.js';
import { queueMail, type MailRequest } from './queue-mail.js';
import { registerEmailTemplate } from './template-methods.js';
import { registerPasswordReset } from './password-reset.js';
import { registerInvitations } from './invitations.js';
import { recordNotificationLog, registerNotifications, type NotificationLogEntry } from './notifications.js';
import { registerDateNotifications } from './notification-dates.js';
import { registerNotificationLogMethods } from './notification-log-methods.js';
import type { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { registerUnsubscribeMethod } from './unsubscribe.js';

/** What mail is wired into: the site's registries and what sending needs (see SenderDeps). */
export interface MailParts extends SenderDeps {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** The host part of Message-IDs (the site's name). */
  readonly domain: string;
  readonly files: FileStore;
  /** The site's public origin, for links in mail (site_config.json `host_name`). */
  readonly baseUrl: string;
  /** Live events: the `notification` event to a user. */
  readonly realtime: RealtimePublisher;
  /** Where a failed batch of the notify outbox is reported (the site's logger). */
  readonly report?: (err: unknown) => void;
}

/** The mail service other subsystems and apps use: queue a mail in a unit of work. */
export interface MailService {
  /** Queues one checked mail (built-in flows). */
  queue(ctx: DocContext, mail: MailRequest): Promise<string>;
  /** `api.mail.send` for apps: sendmail's arguments, templates, attachments, bulk (docs/mail.md "Sending from an app"). */
  send(ctx: DocContext, args: AppMailArgs): Promise<string[]>;
  /** Records a Notification Log for a user in the unit, told live after the commit (assignments, follows). */
  notifyUser(ctx: DocContext, entry: NotificationLogEntry): Promise<void>;
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
  registerEmailTemplate(parts.hooks, parts.methods, parts.documents);
  registerUnsubscribeMethod(parts.methods, parts.documents, parts.encryptionKey);
  const resetDeps = { ...parts, now: () => parts.jobs.clock.now() };
  registerPasswordReset(parts.hooks, parts.methods, resetDeps);
  registerInvitations(parts.hooks, parts.methods, resetDeps);
  registerNotifications(parts.hooks, parts.methods.docMethods, parts);
  registerDateNotifications(parts);
  registerNotificationLogMethods(parts.methods);
  return {
    queue: (ctx, mail) => queueMail(parts, ctx, mail),
    send: (ctx, args) => sendFromApp(parts, ctx, args),
    notifyUser: (ctx, entry) => recordNotificationLog(parts, ctx, entry),
  };
}
