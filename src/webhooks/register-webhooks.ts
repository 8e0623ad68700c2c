import type { Site } from '../site/site.js';
import { WebhookCache } from './webhook-cache.js';
import { registerWebhookController } from './webhook-controller.js';
import { registerDeliveryJob } from './webhook-delivery.js';
import { registerWebhookMethods } from './webhook-methods.js';
import { registerWebhookRecorder } from './webhook-recorder.js';

/** Wires webhooks into an opened site: the controller, the recorder hooks, the delivery job, the methods. */
export function registerWebhooks(site: Site): void {
  registerWebhookController(site.hooks);
  registerWebhookRecorder(site.hooks, site.jobs, new WebhookCache());
  registerDeliveryJob({
    db: site.db,
    metas: site.metas,
    jobs: site.jobs,
    timeZone: () => site.settingsCache.current.time_zone,
    encryptionKey: site.config.encryption_key,
    denyPrivate: site.config.webhook_deny_private_targets,
  });
  registerWebhookMethods(site.methods, site.jobs);
}
