import { deleteFieldSecrets } from '../auth/field-secrets.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HookRegistry } from '../documents/hooks.js';
import type { Doc } from '../meta/doctype.js';
import { ValidationError } from '../errors/index.js';
import { ConditionError, parseCondition } from './condition.js';
import { WEBHOOK, WEBHOOK_REQUEST_LOG } from './doctypes/index.js';
import { checkJsonTemplate, TemplateError } from './json-template.js';
import { dropSnapshot } from './snapshot-store.js';
import { MAX_RETRIES, MAX_TIMEOUT_S } from './webhook-delivery.js';

const SUBMIT_EVENTS = new Set(['on_submit', 'on_cancel', 'on_update_after_submit']);
const QUEUE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const MASK = /^\*+$/;

/**
 * A secret is given to one receiver: a Webhook whose Request URL changes needs its secret entered
 * again when it signs, and otherwise forgets the stored one (docs/webhooks.md "Headers and
 * verifying"), so whoever can edit webhooks cannot point signed requests somewhere else.
 */
async function secretFollowsUrl(ctx: DocContext, doc: Doc): Promise<void> {
  const secret = doc.webhook_secret;
  if (typeof secret === 'string' && secret !== '' && !MASK.test(secret)) return;
  if (Number(doc.enable_security) === 1) fail('Changing the Request URL of a signed webhook needs its Webhook Secret entered again');
  doc.webhook_secret = null;
  await deleteFieldSecrets(ctx.q, ctx.dialect, WEBHOOK, String(doc.name));
}

function fail(message: string): never {
  throw new ValidationError(message, { doctype: WEBHOOK });
}

/**
 * The Webhook controller (docs/webhooks.md "The Webhook DocType"): checks what the reference checks
 * on save (submit events need a submittable DocType, a URL with a host, a condition and a template
 * that parse, no field twice in the data table) plus fw's limits (timeout 1-30 s, at most 10
 * retries, a secret when security is on, the secret entered again when the URL changes), and
 * bumps the metadata version on every change, so every process reads the enabled webhooks again.
 * A deleted Webhook Request Log takes the document it would have rendered from with it.
 */
export function registerWebhookController(hooks: HookRegistry): void {
  hooks.on(WEBHOOK, 'validate', async ({ doc, before, ctx }, next) => {
    const doctype = String(doc.webhook_doctype ?? '');
    const meta = ctx.metas.has(doctype) ? ctx.metas.get(doctype) : undefined;
    if (!meta) fail(`DocType ${doctype} does not exist`);
    if (meta.isChild) fail(`${doctype} is a child table: hook its parent DocType instead`);
    if (doctype === WEBHOOK_REQUEST_LOG || doctype === WEBHOOK) fail(`Webhooks cannot be set on ${doctype}`);
    if (SUBMIT_EVENTS.has(String(doc.webhook_docevent)) && !meta.isSubmittable) {
      fail(`DocType must be Submittable for the selected Doc Event ${String(doc.webhook_docevent)}`);
    }
    let url: URL | undefined;
    try {
      url = new URL(String(doc.request_url ?? '').trim());
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') fail('Request URL must be an http or https URL with a host');
    doc.request_url = url.toString();
    try {
      parseCondition(String(doc.condition ?? ''));
    } catch (err) {
      if (err instanceof ConditionError) fail(`Invalid condition: ${err.message}`);
      throw err;
    }
    if (String(doc.webhook_json ?? '').trim() !== '') {
      try {
        await checkJsonTemplate(String(doc.webhook_json));
      } catch (err) {
        if (err instanceof TemplateError) fail(err.message);
        throw err;
      }
    }
    const timeout = Number(doc.timeout ?? 5);
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_S) fail(`Request Timeout must be 1 to ${MAX_TIMEOUT_S} seconds`);
    const retries = Number(doc.max_retries ?? 3);
    if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES) fail(`Max Retries must be 0 to ${MAX_RETRIES}`);
    const queue = String(doc.background_jobs_queue ?? '');
    if (queue !== '' && !QUEUE.test(queue)) fail('Background Jobs Queue must be a queue name such as "default" or "long"');
    if (Number(doc.enable_security) === 1 && !doc.webhook_secret) fail('Enable Security needs a Webhook Secret');
    if (before && String(before.request_url ?? '') !== doc.request_url) await secretFollowsUrl(ctx, doc);
    const seen = new Set<string>();
    for (const row of (doc.webhook_data as { fieldname?: unknown }[] | undefined) ?? []) {
      const fieldname = String(row.fieldname ?? '');
      if (seen.has(fieldname)) fail(`Same Field is entered more than once: ${fieldname}`);
      seen.add(fieldname);
      if (!meta.hasColumn(fieldname) && !meta.tableFields.some((f) => f.def.fieldname === fieldname)) {
        fail(`${doctype} has no field ${fieldname}`);
      }
    }
    await next();
  });
  hooks.on(WEBHOOK_REQUEST_LOG, 'on_trash', async ({ doc, ctx }, next) => {
    await dropSnapshot(ctx.q, ctx.dialect, String(doc.name));
    await next();
  });
  for (const event of ['on_update', 'on_trash'] as const) {
    hooks.on(WEBHOOK, event, async ({ ctx }, next) => {
      await ctx.metas.bumpVersion(ctx.q);
      await next();
    });
  }
}
