import type { DocEvent, HookRegistry } from '../documents/hooks.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { WEBHOOK, WEBHOOK_REQUEST_LOG } from './doctypes/index.js';
import { buildRequest, type StoredRequest } from './webhook-body.js';
import type { WebhookCache, WebhookDef } from './webhook-cache.js';
import { DELIVER_JOB } from './webhook-delivery.js';
import { insertDelivery, replaceRequest, type LogScope } from './request-log-store.js';

/** The reference's webhook events (docs/webhooks.md "Events"). */
export const WEBHOOK_EVENTS = [
  'after_insert',
  'on_update',
  'on_submit',
  'on_cancel',
  'on_trash',
  'on_update_after_submit',
  'on_change',
] as const satisfies readonly DocEvent[];

/** Deliveries are never about the webhook machinery itself (a webhook on its own log would feed itself). */
const IGNORED = new Set([WEBHOOK_REQUEST_LOG, WEBHOOK]);
const QUEUE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Records webhook matches inside the document's transaction (docs/webhooks.md "How a change
 * becomes a request"): a `*` hook on each event evaluates the enabled webhooks' conditions once
 * the other hooks ran, writes a Webhook Request Log row with the request built from the document,
 * and enqueues its delivery in the same transaction, so both exist exactly when the change commits.
 * A second match of the same (webhook, document) in one unit of work replaces the stored request:
 * one delivery, carrying the last state.
 */
export function registerWebhookRecorder(hooks: HookRegistry, jobs: JobQueue, cache: WebhookCache): void {
  const pending = new WeakMap<object, Map<string, string>>();
  for (const event of WEBHOOK_EVENTS) {
    hooks.on('*', event, async ({ doc, before, ctx }, next, doctype) => {
      await next();
      if (IGNORED.has(doctype)) return;
      // The reference does not count an insert as a change.
      if (event === 'on_change' && before === undefined) return;
      const webhooks = await cache.forEvent(ctx, doctype, event);
      if (webhooks.length === 0) return;
      const scope: LogScope = { q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, timeZone: ctx.settings.timeZone };
      const seen = pending.get(ctx.unit) ?? new Map<string, string>();
      pending.set(ctx.unit, seen);
      for (const hook of webhooks) {
        if (!matches(hook, doc)) continue;
        let request: StoredRequest;
        let error: string | undefined;
        try {
          request = await buildRequest(hook, doctype, event, doc);
        } catch (err) {
          request = { body: '', headers: {} };
          error = (err as Error).message;
        }
        const key = `${hook.name}\u0000${doctype}\u0000${String(doc.name)}`;
        const earlier = seen.get(key);
        if (earlier && !error) {
          await replaceRequest(scope, earlier, event, request);
          continue;
        }
        const base = { webhook: hook.name, doctype, docname: String(doc.name), event, user: ctx.principal.user, url: hook.url, method: hook.method };
        const log = await insertDelivery(scope, { ...base, request, error });
        if (error) continue;
        seen.set(key, log);
        // A savepoint that rolls back (one item of bulk_update) takes the row with it.
        ctx.unit.afterRollback(() => {
          if (seen.get(key) === log) seen.delete(key);
        });
        const queue = hook.queue && QUEUE.test(hook.queue) ? hook.queue : undefined;
        await jobs.enqueue(DELIVER_JOB, { log }, { unit: ctx, jobId: `webhook:${log}:1`, queue });
      }
    });
  }
}

/** A condition that fails while evaluated (comparing text with a number) does not match. */
function matches(hook: WebhookDef, doc: Readonly<Record<string, unknown>>): boolean {
  if (!hook.condition) return false;
  try {
    return hook.condition.matches(doc);
  } catch {
    return false;
  }
}
