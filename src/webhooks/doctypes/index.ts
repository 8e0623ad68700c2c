import webhookData from './webhook-data.json' with { type: 'json' };
import webhookHeader from './webhook-header.json' with { type: 'json' };
import webhookRequestLog from './webhook-request-log.json' with { type: 'json' };
import webhook from './webhook.json' with { type: 'json' };

/** The reference's webhook DocTypes, children first; checked and frozen with the core DocTypes. */
export const WEBHOOK_DOCTYPE_JSON: readonly unknown[] = [webhookHeader, webhookData, webhook, webhookRequestLog];

export const WEBHOOK = 'Webhook';
export const WEBHOOK_REQUEST_LOG = 'Webhook Request Log';
export const WEBHOOK_HEADER = 'Webhook Header';
export const WEBHOOK_DATA = 'Webhook Data';
