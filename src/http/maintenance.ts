import type { FastifyInstance } from 'fastify';
import { maintenanceStop, type Site } from '../site/site.js';

/**
 * Maintenance without reads (docs/configuration.md "Maintenance"): every request but a CORS
 * preflight answers 503 SessionStopped before any route runs. With reads allowed, requests go on
 * and Site.write refuses their writes (503 InReadOnlyMode). The state is looked up at each
 * request, so `fw maintenance on|off` needs no restart.
 */
export function registerMaintenance(app: FastifyInstance, site: Site): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const state = site.maintenance.current;
    done(state.on && !state.allowReads && req.method !== 'OPTIONS' ? maintenanceStop() : undefined);
  });
}
