import emailAccount from './email-account.json' with { type: 'json' };
import emailQueueRecipient from './email-queue-recipient.json' with { type: 'json' };
import emailQueue from './email-queue.json' with { type: 'json' };
import emailTemplate from './email-template.json' with { type: 'json' };
import emailUnsubscribe from './email-unsubscribe.json' with { type: 'json' };
import notificationLog from './notification-log.json' with { type: 'json' };
import notificationRecipient from './notification-recipient.json' with { type: 'json' };
import notification from './notification.json' with { type: 'json' };

/** The mail DocTypes with the reference's names and fields, children first; checked and frozen with the core DocTypes. */
export const MAIL_DOCTYPE_JSON: readonly unknown[] = [
  emailAccount,
  emailQueueRecipient,
  emailQueue,
  emailTemplate,
  emailUnsubscribe,
  notificationRecipient,
  notification,
  notificationLog,
];

export const EMAIL_ACCOUNT = 'Email Account';
export const EMAIL_QUEUE = 'Email Queue';
export const EMAIL_QUEUE_RECIPIENT = 'Email Queue Recipient';
export const EMAIL_TEMPLATE = 'Email Template';
export const EMAIL_UNSUBSCRIBE = 'Email Unsubscribe';
export const NOTIFICATION = 'Notification';
export const NOTIFICATION_RECIPIENT = 'Notification Recipient';
export const NOTIFICATION_LOG = 'Notification Log';

/** The mail subsystem's own DocTypes: no notification fires on them (a mail about a mail would never end). */
export const MAIL_DOCTYPE_NAMES: ReadonlySet<string> = new Set([
  EMAIL_ACCOUNT,
  EMAIL_QUEUE,
  EMAIL_QUEUE_RECIPIENT,
  EMAIL_TEMPLATE,
  EMAIL_UNSUBSCRIBE,
  NOTIFICATION,
  NOTIFICATION_RECIPIENT,
  NOTIFICATION_LOG,
]);
