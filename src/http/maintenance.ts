import { maintenanceStop, type Site } from '../site/site.js';
import type { RequestStep } from './request-pipeline.js';

/**
 * Maintenance without reads (docs/configuration.md "Maintenance"): every request but a CORS
 * preflight answers 503 SessionStopped before any route runs. With reads allowed, requests go on
 * and Site.write refuses their writes (503 InReadOnlyMode). The state is looked up at each
 * request, so `fw maintenance on|off` needs no restart.
 */
export function refuseInMaintenance(site: Site): RequestStep {
  return (req) => {
    const state = site.maintenance.current;
    return state.on && !state.allowReads && req.method !== 'OPTIONS' ? maintenanceStop() : undefined;
  };
}
