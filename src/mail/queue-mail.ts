import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { FrappeTypeError, ValidationError } from '../errors/index.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { composeMessage, type MailAttachment } from './compose-message.js';
import { EMAIL_QUEUE } from './doctypes/index.js';
import { parseAddressList } from './mail-addresses.js';
import type { MailConfig } from './mail-config.js';
import { SEND_JOB, sendJobId } from './mail-sender.js';
import { defaultSender } from './smtp-settings.js';

/** A mail to queue, already checked (see {@link checkMailRequest}). */
export interface MailRequest {
  readonly recipients: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  /** HTML (or plain text, which is HTML without tags). */
  readonly message: string;
  readonly referenceDoctype?: string;
  readonly referenceName?: string;
  readonly sendAfter?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly sender?: string;
  readonly replyTo?: string;
  readonly emailAccount?: string;
  readonly priority: number;
  readonly attachments: readonly MailAttachment[];
  /** Adds `List-Unsubscribe` (bulk mail; docs/mail.md "Unsubscribing"). */
  readonly unsubscribe?: { readonly url: string };
}

/** What queuing needs from the site. */
export interface QueueDeps {
  readonly documents: DocumentService;
  readonly jobs: JobQueue;
  readonly encryptionKey: string;
  readonly config: MailConfig;
  /** The host part of Message-IDs. */
  readonly domain: string;
}

/** Headers a caller may not set: fw writes them from the request itself. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'sender',
  'reply-to',
  'return-path',
]);
const HEADER_NAME = /^[A-Za-z][A-Za-z0-9-]{0,75}$/;
const MAX_SUBJECT = 500;

/** Checks a caller's `headers` argument: names are tokens, none reserved, values one line each. */
export function checkHeaders(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new FrappeTypeError('headers must be an object of header names to text');
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (!HEADER_NAME.test(name)) throw new ValidationError(`Header name ${JSON.stringify(name)} is not a valid header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new ValidationError(`Header ${name} is set by fw and cannot be given`);
    if (typeof text !== 'string' || /[\r\n\0]/.test(text) || text.length > 998) {
      throw new ValidationError(`Header ${name} must be one line of text (at most 998 characters)`);
    }
    out[name] = text;
  }
  return out;
}

/** The subject line: text, one line, bounded. */
export function checkSubject(value: unknown): string {
  if (typeof value !== 'string') throw new FrappeTypeError('subject must be text');
  const subject = value.replace(/[\r\n\t]+/g, ' ').trim();
  if (subject === '') throw new ValidationError('A mail needs a subject');
  if (subject.length > MAX_SUBJECT) throw new ValidationError(`The subject is longer than ${MAX_SUBJECT} characters`);
  return subject;
}

/** Checks the addressing of a request: at least one recipient among recipients, cc and bcc. */
export function checkAddressing(args: { recipients?: unknown; cc?: unknown; bcc?: unknown }): { recipients: string[]; cc: string[]; bcc: string[] } {
  const recipients = parseAddressList(args.recipients, 'recipients');
  const cc = parseAddressList(args.cc, 'cc');
  const bcc = parseAddressList(args.bcc, 'bcc');
  if (recipients.length + cc.length + bcc.length === 0) throw new ValidationError('A mail needs at least one recipient');
  if (recipients.length + cc.length + bcc.length > 500) throw new ValidationError('A mail may have at most 500 recipients');
  return { recipients, cc, bcc };
}

/**
 * Queues a mail in the caller's unit of work (docs/mail.md "The queue"): the whole MIME text is
 * built now and stored in an Email Queue row with one Email Queue Recipient row per address (To,
 * Cc and Bcc), and its send job is written in the same transaction. A rolled-back write leaves
 * neither; a committed one is sent by a worker after the commit, never inside the request. A mail
 * with `send_after` waits for the flush that finds it due. Answers the Email Queue name.
 */
export async function queueMail(deps: QueueDeps, ctx: DocContext, mail: MailRequest): Promise<string> {
  const scope = { q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, encryptionKey: deps.encryptionKey, config: deps.config };
  const from = await defaultSender(scope, mail.emailAccount);
  const sender = mail.sender ? { address: mail.sender, name: undefined } : from;
  const headers: Record<string, string> = { ...mail.headers };
  if (mail.unsubscribe) {
    headers['List-Unsubscribe'] = `<${mail.unsubscribe.url}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  const built = await composeMessage({
    from: sender,
    to: mail.recipients,
    cc: mail.cc,
    subject: mail.subject,
    html: mail.message,
    headers,
    attachments: mail.attachments,
    domain: deps.domain,
    replyTo: mail.replyTo,
  });
  const everyone = [...new Map([...mail.recipients, ...mail.cc, ...mail.bcc].map((a) => [a.toLowerCase(), a])).values()];
  const doc = await deps.documents.insert(
    ctx,
    EMAIL_QUEUE,
    {
      status: 'Not Sent',
      subject: mail.subject,
      sender: sender.name?.replace(/[,;"<>\r\n]/g, '').trim() ? `${sender.name.replace(/[,;"<>\r\n]/g, '').trim()} <${sender.address}>` : sender.address,
      recipients: everyone.map((recipient) => ({ recipient, status: 'Not Sent' })),
      show_as_cc: mail.cc.join(', ') || null,
      priority: mail.priority,
      retry: 0,
      send_after: mail.sendAfter ?? null,
      message_id: built.messageId,
      reference_doctype: mail.referenceDoctype ?? null,
      reference_name: mail.referenceName ?? null,
      email_account: mail.emailAccount ?? from.account ?? null,
      add_unsubscribe_link: mail.unsubscribe ? 1 : 0,
      message: built.raw,
    },
    { ignorePermissions: true },
  );
  const name = String(doc.name);
  if (!mail.sendAfter) await deps.jobs.enqueue(SEND_JOB, { name }, { unit: ctx, jobId: sendJobId(name, 0) });
  return name;
}
