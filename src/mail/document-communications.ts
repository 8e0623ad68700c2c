import type { DocContext } from '../documents/doc-context.js';
import { EMAIL_QUEUE } from './doctypes/index.js';

/*
 * A document's mail as the reference's form timeline reads it (docinfo `communications`;
 * docs/mail.md "On a document's form"). fw keeps no Communication DocType: the Email Queue rows
 * that name the document are answered in a Communication's shape.
 */

/** How many mails docinfo answers, newest first, as the reference's first page of communications. */
export const DOCINFO_COMMUNICATIONS = 20;

/** The reference's Communication `delivery_status` for an Email Queue status. */
const DELIVERY_STATUS: Readonly<Record<string, string>> = {
  'Not Sent': 'Sending',
  Sending: 'Sending',
  Sent: 'Sent',
  'Partially Sent': 'Sent',
  Error: 'Error',
  Expired: 'Expired',
  Cancelled: 'Expired',
};

const ADDRESS = /[^\s<>",;:()]+@[^\s<>",;:()]+/g;

/** The addresses of one header of a raw message (folded lines joined); never Bcc, which a sent message does not carry. */
export function headerAddresses(raw: string, header: 'To' | 'Cc'): string[] {
  const end = raw.search(/\r?\n\r?\n/);
  const head = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${header.toLowerCase()}:`));
  return line ? [...line.slice(header.length + 1).matchAll(ADDRESS)].map((m) => m[0]) : [];
}

/** `Name <address>` → `Name`; a bare address stays itself. */
function displayName(sender: string | null): string | null {
  if (!sender) return null;
  const match = /^\s*(.*?)\s*<[^>]*>\s*$/.exec(sender);
  return match?.[1] ? match[1] : sender;
}

interface QueueRow {
  name: string;
  creation: unknown;
  subject: string | null;
  sender: string | null;
  status: string | null;
  message: string | null;
}

/**
 * The mails queued about the document, newest first, as Communications (`communication_type`
 * "Communication", `communication_medium` "Email", `sent_or_received` "Sent"). Answered to whoever
 * may read the document, as the reference lets a document's readers read its Communications; the
 * recipients are the To and Cc of the message (Bcc stays hidden) and `content` is left empty,
 * since an account mail (a password reset, an invitation) carries a key meant for its recipient only.
 */
export async function documentCommunications(ctx: DocContext, doctype: string, name: string): Promise<Record<string, unknown>[]> {
  if (!ctx.metas.has(EMAIL_QUEUE)) return [];
  const rows = await ctx.q.all<QueueRow>(
    ctx.dialect.builder
      .selectFrom(`tab${EMAIL_QUEUE}`)
      .select(['name', 'creation', 'subject', 'sender', 'status', 'message'])
      .where('reference_doctype', '=', doctype)
      .where('reference_name', '=', name)
      .orderBy('creation', 'desc')
      .orderBy('name', 'desc')
      .limit(DOCINFO_COMMUNICATIONS)
      .compile(),
  );
  return rows.map((r) => {
    const raw = r.message ?? '';
    return {
      name: r.name,
      communication_type: 'Communication',
      communication_medium: 'Email',
      sent_or_received: 'Sent',
      comment_type: null,
      communication_date: r.creation,
      creation: r.creation,
      subject: r.subject,
      content: null,
      sender: r.sender,
      sender_full_name: displayName(r.sender),
      recipients: headerAddresses(raw, 'To').join(', '),
      cc: headerAddresses(raw, 'Cc').join(', ') || null,
      bcc: null,
      delivery_status: DELIVERY_STATUS[r.status ?? ''] ?? null,
      reference_doctype: doctype,
      reference_name: name,
      read_by_recipient: 0,
      rating: 0,
      _liked_by: null,
    };
  });
}
