import emailAccount from './email-account.json' with { type: 'json' };
import emailQueueRecipient from './email-queue-recipient.json' with { type: 'json' };
import emailQueue from './email-queue.json' with { type: 'json' };
import emailTemplate from './email-template.json' with { type: 'json' };
import emailUnsubscribe from './email-unsubscribe.json' with { type: 'json' };

/** The mail DocTypes with the reference's names and fields, children first; checked and frozen with the core DocTypes. */
export const MAIL_DOCTYPE_JSON: readonly unknown[] = [emailAccount, emailQueueRecipient, emailQueue, emailTemplate, emailUnsubscribe];

export const EMAIL_ACCOUNT = 'Email Account';
export const EMAIL_QUEUE = 'Email Queue';
export const EMAIL_QUEUE_RECIPIENT = 'Email Queue Recipient';
export const EMAIL_TEMPLATE = 'Email Template';
export const EMAIL_UNSUBSCRIBE = 'Email Unsubscribe';
