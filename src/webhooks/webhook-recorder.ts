import type { DocEvent, HookRegistry } from '../documents/hooks.js';
import { hashName } from '../documents/naming/hash-name.js';
import type { Doc } from '../meta/doctype.js';
import { newJobName } from '../jobs/job-name.js';
import type { DeliveryOutbox, OutboxEntry } from './delivery-outbox.js';
import { WEBHOOK, WEBHOOK_REQUEST_LOG } from './doctypes/index.js';
import type { WebhookCache, WebhookDef } from './webhook-cache.js';

/** The reference's webhook events (docs/webhooks.md "The Webhook DocType"). */
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

/** What a unit of work remembers of its matches: outbox row and entry by (webhook, document). */
type UnitMatches = Map<string, { readonly row: string; readonly entry: OutboxEntry }>;

/**
 * Records webhook matches inside the document's transaction (docs/webhooks.md "How a change
 * becomes a request"): a `*` hook on each event evaluates the enabled webhooks' conditions once
 * the other hooks ran and writes one outbox row per match holding the request built from the
 * document, so it exists exactly when the change commits; once the unit committed, the outbox
 * turns its rows into Webhook Request Logs and delivery jobs in a batch. A second match of the same
 * (webhook, document) in one unit of work rewrites the row: one delivery, carrying the last state.
 */
export function registerWebhookRecorder(hooks: HookRegistry, outbox: DeliveryOutbox, cache: WebhookCache): void {
  const pending = new WeakMap<object, UnitMatches>();
  for (const event of WEBHOOK_EVENTS) {
    hooks.on('*', event, async ({ doc, before, ctx }, next, doctype) => {
      await next();
      if (IGNORED.has(doctype)) return;
      // The reference does not count an insert as a change.
      if (event === 'on_change' && before === undefined) return;
      const webhooks = await cache.forEvent(ctx, doctype, event);
      if (webhooks.length === 0) return;
      let seen = pending.get(ctx.unit);
      for (const hook of webhooks) {
        if (!matches(hook, doc)) continue;
        // Written as JSON at once (outbox.write), so later changes to `doc` in the unit do not reach it.
        const snapshot = doc as Doc;
        if (!seen) {
          seen = new Map();
          pending.set(ctx.unit, seen);
        }
        const key = `${hook.name}\u0000${doctype}\u0000${String(doc.name)}`;
        const earlier = seen.get(key);
        if (earlier) {
          const entry = { ...earlier.entry, event, doc: snapshot };
          await outbox.rewrite(ctx.q, earlier.row, entry);
          seen.set(key, { row: earlier.row, entry });
          continue;
        }
        const at = Date.now();
        const entry: OutboxEntry = {
          log: hashName(at),
          // Time-ordered (as Svix's KSUIDs are), so a batch appends to the log's webhook_id index.
          webhookId: `msg_${newJobName(at)}`,
          at,
          webhook: hook.name,
          doctype,
          docname: String(doc.name),
          event,
          user: ctx.principal.user,
          url: hook.url,
          method: hook.method,
          queue: hook.queue && QUEUE.test(hook.queue) ? hook.queue : undefined,
          doc: snapshot,
        };
        // Asks for a batch once the unit committed.
        const row = await outbox.write(ctx, entry);
        seen.set(key, { row, entry });
        // A savepoint that rolls back (one item of bulk_update) takes the row with it.
        const matched = seen;
        ctx.unit.afterRollback(() => {
          if (matched.get(key)?.row === row) matched.delete(key);
        });
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
