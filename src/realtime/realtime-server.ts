import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { openBus } from './bus/open-bus.js';
import type { RealtimeBus } from './bus/realtime-bus.js';
import { recheckCredentialsEvery } from './credential-recheck.js';
import { endClientsInMaintenance } from './maintenance-watch.js';
import { RealtimeHub } from './realtime-hub.js';
import { SiteReadDecider } from './read-decider.js';
import type { RealtimeSite } from './realtime-site.js';
import { closeSocketServer, createSocketServer } from './socketio/socket-server.js';
import { registerSseRoute } from './sse/sse-route.js';
import { recheckSubscriptions } from './subscription-recheck.js';
import { routeSessionsToTheirWorker } from './socketio/worker-affinity.js';

/**
 * Adds realtime to a site's HTTP app (docs/realtime.md): Socket.IO at `/socket.io` on the app's
 * own server and the event stream at `/api/v2/realtime`. The bus to the other processes opens
 * once the server listens (an app only injected into, as in tests, opens none) and closes with it,
 * after every client has been disconnected.
 */
export function registerRealtime(app: FastifyInstance, site: RealtimeSite): RealtimeHub {
  const config = site.config.realtime;
  const hub = new RealtimeHub(
    new SiteReadDecider(site),
    {
      maxSubscriptions: config.realtime_max_subscriptions,
      maxBuffered: config.realtime_max_buffered_messages,
      resumeEvents: config.realtime_resume_events,
    },
    { warn: (obj, msg) => app.log.warn(obj, msg) },
  );
  hub.onAccessChange(recheckSubscriptions(site, hub, { warn: (obj, msg) => app.log.warn(obj, msg) }));
  registerSseRoute(app, site, hub);
  const io = createSocketServer(site, hub, app.server);
  let bus: RealtimeBus | undefined;
  let stopRouting: (() => Promise<void>) | undefined;
  let stopWatching: (() => void) | undefined;
  let stopRechecking: (() => void) | undefined;

  // Before the port opens, so every session id a worker issues names it.
  if (cluster.isWorker) {
    app.addHook('onReady', async () => {
      stopRouting ??= await routeSessionsToTheirWorker(app.server, io);
    });
  }

  app.addHook('onListen', async () => {
    stopWatching ??= endClientsInMaintenance(site, hub);
    stopRechecking ??= recheckCredentialsEvery(site, hub, config.realtime_heartbeat_seconds, (err) =>
      app.log.warn({ err }, 'realtime credentials could not be checked again'),
    );
    if (bus) return;
    bus = openBus(site, (err) => app.log.warn({ err }, 'realtime publish failed'));
    // Attached before the bus is up (this hook starts as listen() resolves): what is published
    // meanwhile waits in the bus rather than being dropped.
    site.realtime.attach(bus);
    await bus.start({ deliver: (batch) => void hub.receive(batch), resync: (reason) => hub.resync(reason) });
  });
  app.addHook('preClose', async () => {
    site.realtime.attach(undefined);
    stopWatching?.();
    stopRechecking?.();
    hub.closeAll('server shutting down');
    closeSocketServer(io);
    await bus?.close();
    await stopRouting?.();
  });
  return hub;
}
