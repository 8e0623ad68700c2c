import type { DocContext } from '../documents/doc-context.js';
import { DoesNotExistError, PermissionError, ValidationError } from '../errors/index.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { WEBHOOK_REQUEST_LOG } from './doctypes/index.js';
import { insertDelivery, loadDelivery, markPending, type DeliveryRow, type LogScope } from './request-log-store.js';
import { DELIVER_JOB } from './webhook-delivery.js';

/** The namespace of the delivery methods (docs/webhooks.md "Delivery, retries and the log"). */
export const WEBHOOK_METHODS = 'fw.integrations.doctype.webhook_request_log.webhook_request_log';

function requireSystemManager(ctx: DocContext): void {
  const { principal } = ctx;
  if (principal.isAdministrator || principal.roles.has('System Manager')) return;
  throw new PermissionError('Only a System Manager may retry or replay webhook deliveries', { doctype: WEBHOOK_REQUEST_LOG });
}

/**
 * A delivery refused before its request was rendered (its owner may not read the document, its
 * template ran past its budget) has nothing to send again; Pending ones are rendered by their job.
 */
function refuseUnrendered(log: DeliveryRow): void {
  if (log.status === 'Pending' || Object.keys(log.headers).length > 0) return;
  throw new ValidationError(`${WEBHOOK_REQUEST_LOG} ${log.name} has no request to send: it was refused before one was rendered (${log.status})`);
}

function scopeOf(ctx: DocContext): LogScope {
  return { q: ctx.q, dialect: ctx.dialect, metas: ctx.metas, timeZone: ctx.settings.timeZone };
}

/**
 * `retry_now`: the next attempt of a Failed or Exhausted delivery now, with the same stored request
 * and `webhook-id`. `replay`: a new delivery (new log, new `webhook-id`) of the stored request of
 * any log, for a receiver that lost what it had received. Both System Manager only.
 */
export function registerWebhookMethods(methods: MethodRegistry, jobs: JobQueue): void {
  const params = [{ name: 'name', type: 'string' as const, required: true }];

  methods.register(
    `${WEBHOOK_METHODS}.retry_now`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const name = String(args.name);
      const log = await loadDelivery(scopeOf(ctx), name, { forUpdate: true });
      if (!log) throw new DoesNotExistError(`${WEBHOOK_REQUEST_LOG} ${name} not found`, { doctype: WEBHOOK_REQUEST_LOG });
      refuseUnrendered(log);
      if (log.status === 'Delivered' || log.status === 'Pending') {
        throw new ValidationError(`${WEBHOOK_REQUEST_LOG} ${name} is ${log.status}: only Failed or Exhausted deliveries can be retried`);
      }
      await markPending(scopeOf(ctx), name);
      await jobs.enqueue(DELIVER_JOB, { log: name }, { unit: ctx, jobId: `webhook:${name}:now:${log.attempt + 1}` });
      return { name, status: 'Pending' };
    },
    { methods: ['POST'], roles: ['System Manager'], params },
  );

  methods.register(
    `${WEBHOOK_METHODS}.replay`,
    async ({ ctx, args }: MethodCall) => {
      requireSystemManager(ctx);
      const name = String(args.name);
      const log = await loadDelivery(scopeOf(ctx), name);
      if (!log) throw new DoesNotExistError(`${WEBHOOK_REQUEST_LOG} ${name} not found`, { doctype: WEBHOOK_REQUEST_LOG });
      if (Object.keys(log.headers).length === 0) {
        throw new ValidationError(`${WEBHOOK_REQUEST_LOG} ${name} has no request to replay: none was rendered (${log.status})`);
      }
      const copy = await insertDelivery(scopeOf(ctx), {
        webhook: log.webhook,
        doctype: log.reference_doctype,
        docname: log.reference_document,
        event: log.event,
        user: ctx.principal.user,
        url: log.url,
        method: log.request_method,
        request: { body: log.data, headers: log.headers },
      });
      await jobs.enqueue(DELIVER_JOB, { log: copy }, { unit: ctx, jobId: `webhook:${copy}:1` });
      return { name: copy, status: 'Pending' };
    },
    { methods: ['POST'], roles: ['System Manager'], params },
  );
}
