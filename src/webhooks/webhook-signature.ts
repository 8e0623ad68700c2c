import { createHmac } from 'node:crypto';

/** The reference's header: base64 HMAC-SHA256 of the raw body, keyed by the secret. */
export const FRAPPE_SIGNATURE_HEADER = 'X-Frappe-Webhook-Signature';

/** base64(HMAC-SHA256(secret, body)), as the reference signs. */
export function frappeSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64');
}

/**
 * The Standard Webhooks key: a `whsec_<base64>` secret is the decoded bytes (as their libraries
 * expect); any other secret is its UTF-8 bytes (docs/webhooks.md "Verifying").
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, the Standard Webhooks signature. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: the stored ones, the event id and time, and signatures when secured. */
export function attemptHeaders(
  stored: Readonly<Record<string, string>>,
  attempt: { id: string; timestamp: number; body: string; secret: string | undefined },
): Record<string, string> {
  const headers: Record<string, string> = { ...stored, 'webhook-id': attempt.id, 'webhook-timestamp': String(attempt.timestamp) };
  if (attempt.secret) {
    headers[FRAPPE_SIGNATURE_HEADER] = frappeSignature(attempt.secret, attempt.body);
    headers['webhook-signature'] = standardSignature(attempt.secret, attempt.id, attempt.timestamp, attempt.body);
  }
  return headers;
}
