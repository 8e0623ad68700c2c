import type { HookRegistry } from '../documents/hooks.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { WebhookCache } from './webhook-cache.js';
import { registerWebhookController } from './webhook-controller.js';
import { registerDeliveryJob, type DeliveryDeps } from './webhook-delivery.js';
import { registerWebhookMethods } from './webhook-methods.js';
import { registerWebhookRecorder } from './webhook-recorder.js';

/** What webhooks are wired into: the site's registries, and what delivery needs (see DeliveryDeps). */
export interface WebhookParts extends DeliveryDeps {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
}

/** Wires webhooks into a site as openSite opens it: the controller, the recorder hooks, the delivery job, the methods. */
export function registerWebhooks(parts: WebhookParts): void {
  registerWebhookController(parts.hooks);
  registerWebhookRecorder(parts.hooks, parts.jobs, new WebhookCache());
  registerDeliveryJob(parts);
  registerWebhookMethods(parts.methods, parts.jobs);
}
