import type { RealtimeHub } from './realtime-hub.js';
import type { MaintenanceSource } from './realtime-site.js';

/**
 * How often live clients are held against the maintenance state. A look is free unless the site
 * folder reported a change (or a second passed): site/maintenance.ts then stats the config file.
 */
const LOOK_EVERY_MS = 250;

/** True while the site serves no request at all: maintenance without reads (docs/configuration.md "Maintenance"). */
export function siteStopped(site: MaintenanceSource): boolean {
  const state = site.maintenance.current;
  return state.on && !state.allowReads;
}

/**
 * Ends every socket and stream of this process once the site goes into maintenance without reads,
 * as every HTTP request is then refused (docs/realtime.md, "Maintenance"); new ones are refused at
 * the handshake. With reads allowed, realtime goes on: it only reads. Returns the function that
 * stops watching.
 */
export function endClientsInMaintenance(site: MaintenanceSource, hub: RealtimeHub): () => void {
  const timer = setInterval(() => {
    if (siteStopped(site)) hub.closeAll('site in maintenance');
  }, LOOK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
