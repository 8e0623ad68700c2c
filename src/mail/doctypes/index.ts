import emailAccount from './email-account.json' with { type: 'json' };
import emailQueueRecipient from './email-queue-recipient.json' with { type: 'json' };
import emailQueue from './email-queue.json' with { type: 'json' };

/** The mail DocTypes with the reference's names and fields, children first; checked and frozen with the core DocTypes. */
export const MAIL_DOCTYPE_JSON: readonly unknown[] = [emailAccount, emailQueueRecipient, emailQueue];

export const EMAIL_ACCOUNT = 'Email Account';
export const EMAIL_QUEUE = 'Email Queue';
export const EMAIL_QUEUE_RECIPIENT = 'Email Queue Recipient';
