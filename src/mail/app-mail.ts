import type { Readable } from 'node:stream';
import type { DocContext } from '../documents/doc-context.js';
import { DoesNotExistError, FrappeTypeError, ValidationError } from '../errors/index.js';
import type { FileStore } from '../files/file-store.js';
import { parseFileUrl } from '../files/file-url.js';
import type { Row } from '../storage/database.js';
import type { MailAttachment } from './compose-message.js';
import { EMAIL_TEMPLATE } from './doctypes/index.js';
import { checkMessage, mailRequestOf, type SendMailArgs } from './mail-request.js';
import { MailTemplateError, renderMailTemplate } from './mail-template.js';
import { queueMail, type QueueDeps } from './queue-mail.js';
import { unsubscribedAmong, unsubscribeUrl } from './unsubscribe.js';

/** `api.mail.send` arguments: sendmail's, plus a template, attachments and bulk sending (docs/mail.md "Sending from an app"). */
export interface AppMailArgs extends SendMailArgs {
  /** An Email Template's name: subject and message are rendered from it with `args`. */
  readonly template?: string;
  /** The template's context (`doc` and anything else). */
  readonly args?: Readonly<Record<string, unknown>>;
  /** File document names to attach (the caller must be able to read each). */
  readonly attachments?: readonly string[];
  /** Bulk mail: one mail per recipient with a List-Unsubscribe link; unsubscribed addresses are skipped. */
  readonly add_unsubscribe_link?: boolean | 0 | 1;
}

/** What sending from apps needs. */
export interface AppMailDeps extends QueueDeps {
  readonly files: FileStore;
  /** The site's public origin, for unsubscribe links. */
  readonly baseUrl: string;
}

const MAX_ATTACHMENTS = 10;
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** The stored subject and body of an Email Template (no permission check: the caller is the server). */
async function loadTemplate(ctx: DocContext, name: string): Promise<{ subject: string; body: string }> {
  const [row] = await ctx.q.all<Row>(ctx.dialect.builder.selectFrom(ctx.metas.get(EMAIL_TEMPLATE).tableName).selectAll().where('name', '=', name).compile());
  if (!row) throw new DoesNotExistError(`Email Template ${name} not found`, { doctype: EMAIL_TEMPLATE });
  const body = Number(row.use_html) === 1 ? row.response_html : row.response;
  return { subject: String(row.subject ?? ''), body: String(body ?? '') };
}

/** Renders an Email Template with `context` into `{subject, message}` (the reference's get_email_template answer). */
export async function renderTemplate(ctx: DocContext, name: string, context: Record<string, unknown>): Promise<{ subject: string; message: string }> {
  const template = await loadTemplate(ctx, name);
  try {
    return {
      subject: await renderMailTemplate(template.subject, context, 'text', `The subject of Email Template ${name}`),
      message: await renderMailTemplate(template.body, context, 'html', `Email Template ${name}`),
    };
  } catch (err) {
    if (err instanceof MailTemplateError) throw new ValidationError(err.message, { doctype: EMAIL_TEMPLATE });
    throw err;
  }
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.destroy();
      throw new ValidationError(`Attachments may total at most ${limit / 1024 / 1024} MiB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads the named File documents the caller may read, within the attachment limits. */
async function readAttachments(deps: AppMailDeps, ctx: DocContext, names: unknown): Promise<MailAttachment[]> {
  if (names === undefined || names === null) return [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || n === '')) throw new FrappeTypeError('attachments must be a list of File names');
  if (names.length > MAX_ATTACHMENTS) throw new ValidationError(`A mail may carry at most ${MAX_ATTACHMENTS} attachments`);
  const out: MailAttachment[] = [];
  let budget = MAX_ATTACHMENT_BYTES;
  for (const name of names as string[]) {
    const file = await deps.documents.get(ctx, 'File', name);
    const local = parseFileUrl(file.file_url);
    const opened = local ? await deps.files.open(local.key) : undefined;
    if (!local || !opened) throw new ValidationError(`File ${name} has no stored content to attach`);
    const content = await readAll(opened.stream, budget);
    budget -= content.length;
    out.push({ filename: String(file.file_name ?? local.name), content });
  }
  return out;
}

/**
 * `api.mail.send`: queues a mail in the caller's unit (it leaves after the commit, never for a
 * rolled-back write) and answers the Email Queue names: one, or one per recipient for bulk mail
 * (none when every bulk recipient unsubscribed).
 */
export async function sendFromApp(deps: AppMailDeps, ctx: DocContext, args: AppMailArgs): Promise<string[]> {
  if (typeof args !== 'object' || args === null) throw new FrappeTypeError('mail.send takes an object of arguments');
  let body: { subject: string; message: string };
  if (args.template !== undefined) {
    if (typeof args.template !== 'string' || args.template === '') throw new FrappeTypeError('template must be an Email Template name');
    const context = args.args && typeof args.args === 'object' ? { ...args.args } : {};
    body = await renderTemplate(ctx, args.template, context);
  } else {
    body = { subject: String(args.subject ?? ''), message: checkMessage(args.message ?? '') };
  }
  const request = { ...mailRequestOf(args, body), attachments: await readAttachments(deps, ctx, args.attachments) };
  const bulk = args.add_unsubscribe_link === true || args.add_unsubscribe_link === 1;
  if (!bulk) return [await queueMail(deps, ctx, request)];
  if (request.cc.length > 0 || request.bcc.length > 0) throw new ValidationError('Bulk mail goes to recipients only, one mail each: cc and bcc are not taken');
  const reference = { doctype: request.referenceDoctype, name: request.referenceName };
  const skipped = await unsubscribedAmong(ctx, request.recipients, reference);
  const names: string[] = [];
  for (const recipient of request.recipients) {
    if (skipped.has(recipient.toLowerCase())) continue;
    const url = unsubscribeUrl(deps.baseUrl, deps.encryptionKey, { email: recipient, doctype: reference.doctype ?? '', name: reference.name ?? '' });
    names.push(await queueMail(deps, ctx, { ...request, recipients: [recipient], unsubscribe: { url } }));
  }
  return names;
}
