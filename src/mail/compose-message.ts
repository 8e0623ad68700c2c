import { randomBytes } from 'node:crypto';
import { htmlToText } from './html-text.js';

/** One attachment, already read. */
export interface MailAttachment {
  readonly filename: string;
  readonly content: Buffer;
  readonly contentType?: string;
}

/** What a queued mail's MIME text is built from. */
export interface MessageParts {
  readonly from: { readonly address: string; readonly name: string | undefined };
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string;
  /** HTML body; the plain-text part is generated from it. */
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly attachments: readonly MailAttachment[];
  /** The host part of the Message-ID (the site's name). */
  readonly domain: string;
  readonly replyTo?: string;
}

/** A built message: its MIME text and the Message-ID in it. */
export interface BuiltMessage {
  readonly raw: string;
  readonly messageId: string;
}

/**
 * Builds the whole MIME text once, when the mail is queued (docs/mail.md "The queue"): every retry
 * sends the same bytes, so the `Message-ID` is stable and a receiver can drop a duplicate. Bcc
 * recipients never appear in it; they are only in the envelope.
 */
export async function composeMessage(parts: MessageParts): Promise<BuiltMessage> {
  // Imported by the first mail, as smtp-send.ts imports nodemailer (docs/benchmarks.md "Modules loaded on first use").
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  const messageId = `<${randomBytes(16).toString('hex')}@${parts.domain}>`;
  const composer = new MailComposer({
    from: parts.from.name ? { name: parts.from.name, address: parts.from.address } : parts.from.address,
    to: [...parts.to],
    cc: parts.cc.length > 0 ? [...parts.cc] : undefined,
    replyTo: parts.replyTo,
    subject: parts.subject,
    html: parts.html,
    text: htmlToText(parts.html),
    messageId,
    date: new Date(),
    headers: { ...parts.headers },
    attachments: parts.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const raw = await composer.compile().build();
  return { raw: raw.toString('utf8'), messageId };
}
