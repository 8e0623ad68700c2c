import { FrappeTypeError, ValidationError } from '../errors/index.js';
import { isEmailAddress } from './mail-addresses.js';
import { checkAddressing, checkHeaders, checkSubject, type MailRequest } from './queue-mail.js';

/** The arguments of `sendmail` with the reference's names (docs/mail.md "Sending from an app"). */
export interface SendMailArgs {
  readonly recipients?: string | readonly string[];
  readonly cc?: string | readonly string[];
  readonly bcc?: string | readonly string[];
  readonly subject?: string;
  readonly message?: string;
  readonly reference_doctype?: string;
  readonly reference_name?: string;
  /** `YYYY-MM-DD HH:MM:SS` in the site's time zone: not sent before. */
  readonly send_after?: string;
  /** Accepted for the reference's sake: every mail is sent right after its commit anyway. */
  readonly now?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly sender?: string;
  readonly reply_to?: string;
  readonly email_account?: string;
  /** Higher is sent first (default 1). */
  readonly priority?: number;
}

const optionalText = (value: unknown, what: string): string | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new FrappeTypeError(`${what} must be text`);
  return value;
};

const SEND_AFTER = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;

/** Checks `sendmail` arguments (shape, addresses, headers) into a {@link MailRequest} without its body. */
export function mailRequestOf(args: SendMailArgs, body: { subject: string; message: string }): MailRequest {
  if (typeof args !== 'object' || args === null) throw new FrappeTypeError('sendmail takes an object of arguments');
  const addressing = checkAddressing(args);
  const sender = optionalText(args.sender, 'sender');
  if (sender !== undefined && !isEmailAddress(sender)) throw new ValidationError(`sender: ${sender} is not a valid Email Address`);
  const replyTo = optionalText(args.reply_to, 'reply_to');
  if (replyTo !== undefined && !isEmailAddress(replyTo)) throw new ValidationError(`reply_to: ${replyTo} is not a valid Email Address`);
  const sendAfter = optionalText(args.send_after, 'send_after');
  if (sendAfter !== undefined && !SEND_AFTER.test(sendAfter)) throw new ValidationError('send_after must be a datetime such as 2031-01-31 09:00:00');
  const priority = args.priority ?? 1;
  if (!Number.isInteger(priority) || priority < 0 || priority > 10) throw new FrappeTypeError('priority must be a whole number from 0 to 10');
  const referenceDoctype = optionalText(args.reference_doctype, 'reference_doctype');
  const referenceName = optionalText(args.reference_name, 'reference_name');
  if ((referenceDoctype === undefined) !== (referenceName === undefined)) throw new ValidationError('reference_doctype and reference_name go together');
  return {
    ...addressing,
    subject: checkSubject(body.subject),
    message: body.message,
    referenceDoctype,
    referenceName,
    sendAfter: sendAfter?.replace('T', ' '),
    headers: checkHeaders(args.headers),
    sender,
    replyTo,
    emailAccount: optionalText(args.email_account, 'email_account'),
    priority,
    attachments: [],
  };
}

/** The message body: text (HTML or plain), at most 5 MB. */
export function checkMessage(value: unknown): string {
  if (typeof value !== 'string') throw new FrappeTypeError('message must be text');
  if (value.length > 5_000_000) throw new ValidationError('The message is larger than 5 MB');
  return value;
}
