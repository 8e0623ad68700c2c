import type { HookRegistry } from '../documents/hooks.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { registerAccessChanges } from './access-changes.js';
import { registerDocumentEvents } from './document-events.js';
import { registerRealtimeHasPermission } from './realtime-methods.js';
import type { RealtimeConfig } from './realtime-config.js';
import { RealtimePublisher } from './realtime-publisher.js';
import { registerSessionRevocation } from './session-revocation.js';

export { registerRealtime } from './realtime-server.js';
export { RealtimePublisher, type ProgressUpdate, type PublishTarget } from './realtime-publisher.js';

/**
 * The site-level half of realtime, wired by openSite: the publisher every event goes through, the
 * after-commit listeners that turn document writes and access changes into events, and the
 * `fw.realtime.*` methods. The server half (sockets, streams, the bus) is `registerRealtime`.
 */
export function createRealtime(
  config: { readonly realtime: RealtimeConfig },
  hooks: HookRegistry,
  metas: MetaRegistry,
  methods: MethodRegistry,
): RealtimePublisher {
  const publisher = new RealtimePublisher(config.realtime.realtime_max_message_bytes);
  registerDocumentEvents(hooks, metas, publisher);
  registerSessionRevocation(hooks, publisher);
  registerAccessChanges(hooks, publisher);
  registerRealtimeHasPermission(methods);
  return publisher;
}
