import type { Doc } from '../meta/doctype.js';
import { renderJsonTemplate } from './json-template.js';
import type { WebhookDef } from './webhook-cache.js';

/** A request as stored in the Webhook Request Log and replayed on every attempt. */
export interface StoredRequest {
  readonly body: string;
  /** The webhook's headers with Content-Type filled in; signatures are added at each attempt. */
  readonly headers: Record<string, string>;
}

const FORM = 'Form URL-Encoded';

/**
 * The body of a webhook request for `doc` (docs/webhooks.md "Bodies"): the rendered JSON template,
 * else `{key: doc[fieldname]}` from the Webhook Data rows, else `{event, doctype, name, doc}`.
 * Sent as JSON (Content-Type application/json unless a header says otherwise), or as a real form
 * when the structure is Form URL-Encoded. A template that fails throws TemplateError.
 */
export async function buildRequest(hook: WebhookDef, doctype: string, event: string, doc: Doc): Promise<StoredRequest> {
  let data: unknown;
  if (hook.json.trim() !== '') data = await renderJsonTemplate(hook.json, doc);
  else if (hook.data.length > 0) data = Object.fromEntries(hook.data.map((d) => [d.key, doc[d.fieldname] ?? null]));
  else data = { event, doctype, name: doc.name, doc };

  const form = hook.structure === FORM && data !== null && typeof data === 'object' && !Array.isArray(data);
  const body = form
    ? new URLSearchParams(
        Object.entries(data as Record<string, unknown>).map(([k, v]): [string, string] => [
          k,
          v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v),
        ]),
      ).toString()
    : JSON.stringify(data);
  const headers: Record<string, string> = { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' };
  for (const { key, value } of hook.headers) {
    // A header the user set replaces ours whatever its case.
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === key.toLowerCase()) delete headers[existing];
    headers[key] = value;
  }
  return { body, headers };
}
