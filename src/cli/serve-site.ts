import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { schedulerTickFromEnv, startSiteWorker } from '../site/site-jobs.js';
import { listenOnSocketIoPort, type ExtraPort } from '../realtime/socketio/socketio-port.js';
import { openSite } from '../site/open-site.js';
import { prettyLogStream, type LogFormat } from './log-format.js';
import { listeningUrl } from './serve-banner.js';

/** Where and what `serveSite` serves. */
export interface ServeSiteOptions {
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  /** Overrides the site config's database URL. */
  readonly dbUrl?: string;
  /** Fastify (pino) log level. */
  readonly logLevel: string;
  /** JSON lines, or one readable line per request (FW_LOG_FORMAT; docs/configuration.md "Environment"). */
  readonly logFormat?: LogFormat;
  /** Printed once the server listens, given its URL (the terminal banner; serve-banner.ts). */
  readonly banner?: (url: string) => string;
  /** A second port for Socket.IO clients (overrides site config `socketio_port`; docs/realtime.md). */
  readonly socketioPort?: number;
  /** Background jobs this process runs at once beside serving (default 2; 0: none, leave them to `fw worker`). */
  readonly jobConcurrency?: number;
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Resolves with the first SIGTERM or SIGINT. Listening starts at once, so a signal that arrives
 * while the site is still opening is not lost. A cluster worker keeps ignoring later signals (a
 * terminal's Ctrl-C reaches it and then the primary's SIGTERM follows); a lone process lets a
 * second signal end it at once.
 */
function stopSignal(): Promise<string> {
  const inWorker = cluster.isWorker;
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      if (!inWorker) for (const s of STOP_SIGNALS) process.off(s, onSignal);
      resolve(signal);
    };
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
  });
}

/**
 * Serves a site in this process until SIGTERM or SIGINT, then stops accepting, lets requests in
 * flight finish and closes the database. Resolves with the exit code. A cluster worker leaves the
 * cluster at the end, stopped or failed: its IPC channel would otherwise keep it alive, and the
 * primary learns of the exit at once.
 */
export async function serveSite(options: ServeSiteOptions): Promise<number> {
  try {
    return await serveUntilStopped(options);
  } finally {
    cluster.worker?.disconnect();
  }
}

async function serveUntilStopped(options: ServeSiteOptions): Promise<number> {
  const stopped = stopSignal();
  // The primary warned about site_config.json already; N workers repeating it would only be noise.
  const warn = cluster.isWorker ? () => {} : undefined;
  const site = await openSite(options.dir, { dbUrl: options.dbUrl, warn });
  let app: FastifyInstance | undefined;
  let socketioPort: ExtraPort | undefined;
  try {
    const stream = options.logFormat === 'pretty' ? { stream: prettyLogStream() } : {};
    app = await buildApp(site, { logger: { level: options.logLevel, ...stream } });
    site.logger = app.log;
    await app.listen({ host: options.host, port: options.port });
    const address = app.server.address();
    if (options.banner && address && typeof address === 'object') process.stdout.write(options.banner(listeningUrl(options.host, address.port)));
    const extraPort = options.socketioPort ?? site.config.realtime.socketio_port;
    if (extraPort !== null) {
      socketioPort = await listenOnSocketIoPort(app, options.host, extraPort);
      app.log.info(`Socket.IO also listening on port ${socketioPort.port}`);
    }
  } catch (err) {
    await socketioPort?.close();
    await app?.close();
    await site.close();
    throw err;
  }
  const jobs =
    options.jobConcurrency === 0
      ? undefined
      : startSiteWorker(site, { concurrency: options.jobConcurrency, logger: app.log, schedulerTickMs: schedulerTickFromEnv() });
  const signal = await stopped;
  app.log.info(`${signal}: finishing requests in flight`);
  await socketioPort?.close();
  await app.close();
  await jobs?.stop();
  await site.close();
  app.log.info('stopped');
  return 0;
}
