import type { HookRegistry } from '../documents/hooks.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { deliveryOutbox } from './delivery-outbox.js';
import { WebhookCache } from './webhook-cache.js';
import { registerWebhookController } from './webhook-controller.js';
import { registerDeliveryJob, type DeliveryDeps } from './webhook-delivery.js';
import { registerWebhookMethods } from './webhook-methods.js';
import { registerWebhookRecorder } from './webhook-recorder.js';

/** What webhooks are wired into: the site's registries, and what delivery needs (see DeliveryDeps). */
export interface WebhookParts extends DeliveryDeps {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  /** Where a failed outbox batch, or an outbox entry set aside, is reported (the site's logger). */
  readonly report: (err: unknown) => void;
}

/**
 * Wires webhooks into a site as openSite opens it: the controller, the outbox (a job source of the
 * site's queue), the recorder hooks, the delivery job, the methods.
 */
export function registerWebhooks(parts: WebhookParts): void {
  registerWebhookController(parts.hooks);
  const outbox = deliveryOutbox(parts);
  parts.jobs.addSource(outbox);
  registerWebhookRecorder(parts.hooks, outbox, new WebhookCache());
  registerDeliveryJob(parts);
  registerWebhookMethods(parts.methods, parts.jobs);
}
