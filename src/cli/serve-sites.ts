import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { DoesNotExistError, ServiceUnavailableError, type FwError } from '../errors/index.js';
import { buildApp } from '../http/app.js';
import { clientErrorHandler, expectationFailedHandler, rawErrorAnswer } from '../http/framework-errors.js';
import { schedulerTickFromEnv, startSiteWorker, type RunningJobs } from '../site/site-jobs.js';
import { loadSiteConfig } from '../site/site-config.js';
import { openSite } from '../site/open-site.js';
import { sitePaths } from '../site/site-paths.js';
import type { Site } from '../site/site.js';
import { SiteRegistry, type SiteOpener } from '../site-router/site-registry.js';
import { prettyLogStream, type LogFormat } from './log-format.js';
import { jsonLineLog, type ProcessLog } from './process-log.js';
import { listeningUrl } from './serve-banner.js';
import { SiteServer } from './site-server.js';

/** Where and what `serveSites` serves. */
export interface ServeSitesOptions {
  /** The folder whose sub-folders are the sites, each named after its host name. */
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  /** The site answering a Host that names none (localhost, an address). */
  readonly defaultSite?: string;
  /** Seconds a site may go without a request or socket before it is closed (0: never). */
  readonly idleSeconds: number;
  /** Background jobs each open site runs at once beside serving (0: none, leave them to `fw worker`). */
  readonly jobConcurrency?: number;
  readonly banner?: (url: string) => string;
}

/** One open site: its database and services, its app, the server its requests are emitted on, its jobs. */
interface OpenSite {
  readonly site: Site;
  readonly app: FastifyInstance;
  readonly server: SiteServer;
  readonly jobs: RunningJobs | undefined;
  /** Closes the app once (shutdown closes apps first, so realtime clients end before the connections are awaited). */
  closeApp(): Promise<void>;
}

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * `fw serve --sites <dir>`: one listening server in front of one Fastify app per site. Each
 * request is handed to the app of the site its Host (or trusted X-Frappe-Site-Name) names; the
 * single-site server (serve-site.ts) does not pass through here at all, so its hot path is
 * untouched (docs/architecture.md "Several sites in one process"). Resolves with the exit code
 * after SIGTERM or SIGINT.
 */
export async function serveSites(options: ServeSitesOptions): Promise<number> {
  const stopped = new Promise<string>((resolve) => {
    const onSignal = (signal: string) => {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      resolve(signal);
    };
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
  });
  const pretty = options.logFormat === 'pretty' ? prettyLogStream() : undefined;
  const log = pretty ? jsonLineLog(options.logLevel, (line) => pretty.write(line)) : jsonLineLog(options.logLevel);
  const front = createServer({ requireHostHeader: false, keepAliveTimeout: 72_000 });
  const registry = new SiteRegistry<OpenSite>(
    options.dir,
    siteOpener(options, log, () => front.address()),
    {
      defaultSite: options.defaultSite,
      idleMs: options.idleSeconds * 1000,
      onCloseError: (err, name) => log.error('site did not close cleanly', { site: name, err: String(err) }),
    },
  );
  const frontLog = { debug: () => {}, error: (obj: object, msg: string) => log.error(msg, obj as Record<string, unknown>) };
  front.on('request', dispatchRequests(registry, frontLog));
  front.on('upgrade', dispatchUpgrades(registry, frontLog));
  front.on('clientError', clientErrorHandler(false).bind({ log: frontLog as never }));
  front.on('checkExpectation', expectationFailedHandler(false, frontLog as never));

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen({ host: options.host, port: options.port }, () => resolve());
  });
  const address = front.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info(`Server listening at ${listeningUrl(options.host, port)}`, { sites: options.dir });
  if (options.banner) process.stdout.write(options.banner(listeningUrl(options.host, port)));

  const signal = await stopped;
  log.info(`${signal}: finishing requests in flight`);
  const drained = new Promise<void>((resolve) => front.close(() => resolve()));
  front.closeIdleConnections();
  // Ends every site's realtime clients and event streams, so the requests left are ordinary ones.
  await Promise.all(registry.open.map(async (name) => (await registry.acquire(name)).closeApp()));
  const timer = setTimeout(() => front.closeAllConnections(), DRAIN_TIMEOUT_MS);
  await drained;
  clearTimeout(timer);
  await registry.close();
  log.info('stopped');
  return 0;
}

/** How the registry opens a site folder: the site, its app on a SiteServer, its jobs. */
function siteOpener(options: ServeSitesOptions, log: ProcessLog, frontAddress: () => ReturnType<Server['address']>): SiteOpener<OpenSite> {
  const stream = options.logFormat === 'pretty' ? { stream: prettyLogStream() } : {};
  return {
    async inspect(dir) {
      const paths = sitePaths(dir);
      try {
        await stat(paths.config);
      } catch {
        return undefined;
      }
      try {
        return { trustsSiteHeader: (await loadSiteConfig(paths.config)).trust_site_header };
      } catch {
        // A broken config still names a site: opening it fails with a 503 that the log explains.
        return { trustsSiteHeader: false };
      }
    },
    async open(name, dir) {
      const site = await openSite(dir, { warn: (message) => log.warn(message, { site: name }) });
      let server: SiteServer | undefined;
      let app: FastifyInstance | undefined;
      try {
        app = await buildApp(site, {
          logger: { level: options.logLevel, base: { pid: process.pid, hostname: hostname(), site: name }, ...stream },
          serverFactory: (handler) => {
            server = new SiteServer(handler, frontAddress);
            return server;
          },
        });
        site.logger = app.log;
        await app.listen({ host: '127.0.0.1', port: 0, listenTextResolver: () => `site ${name} opened` });
      } catch (err) {
        await app?.close();
        await site.close();
        throw err;
      }
      const jobs =
        options.jobConcurrency === 0
          ? undefined
          : startSiteWorker(site, { concurrency: options.jobConcurrency, logger: app.log, schedulerTickMs: schedulerTickFromEnv() });
      let appClosed: Promise<void> | undefined;
      const openedApp = app;
      return { site, app, server: server as SiteServer, jobs, closeApp: () => (appClosed ??= openedApp.close()) };
    },
    async close(handle, name) {
      await handle.closeApp();
      await handle.jobs?.stop();
      await handle.site.close();
      log.info(`site ${name} closed`, { site: name });
    },
  };
}

type FrontLog = { debug(): void; error(obj: object, msg: string): void };

/** Answers a request no site takes, in the error envelope (docs/api.md "Errors"). */
function refuse(res: ServerResponse, error: FwError, log: FrontLog): void {
  const { status, headers, body } = rawErrorAnswer({ error }, false, log as never);
  res.writeHead(status, headers).end(body);
}

function refuseUpgrade(socket: Duplex, error: FwError, log: FrontLog): void {
  const { status, headers, body } = rawErrorAnswer({ error }, false, log as never);
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Service Unavailable'}\r\n${head.join('')}\r\n${body}`);
}

function unknownSite(headers: IncomingMessage['headers']): DoesNotExistError {
  const host = String(headers.host ?? '').slice(0, 200);
  return new DoesNotExistError(`No site is served at host "${host}"`);
}

function cannotOpen(name: string, err: unknown, log: FrontLog): ServiceUnavailableError {
  log.error({ site: name, err: String(err) }, 'site could not be opened');
  return new ServiceUnavailableError(`The site "${name}" cannot be opened right now; try again`);
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}

/**
 * Hands `work` the open site a request is for; the site counts as busy until `done` fires, so an
 * idle sweep never closes it under a request or socket. Synchronous for a known, open site.
 */
function withSite(
  registry: SiteRegistry<OpenSite>,
  req: IncomingMessage,
  done: { once(event: 'close', listener: () => void): unknown; readonly closed?: boolean; readonly destroyed?: boolean },
  work: (site: OpenSite) => void,
  refusal: (error: FwError) => void,
  log: FrontLog,
): void {
  const take = (name: string | undefined): void => {
    if (name === undefined) {
      refusal(unknownSite(req.headers));
      return;
    }
    // Counted busy from the moment the site is had, until the response or socket closes (it may
    // have closed while the site was opening). A failed opening holds nothing to release.
    const use = (site: OpenSite): void => {
      if (done.closed === true || done.destroyed === true) registry.release(name);
      else done.once('close', () => registry.release(name));
      work(site);
    };
    let acquired: OpenSite | Promise<OpenSite>;
    try {
      acquired = registry.acquire(name);
    } catch (err) {
      refusal(cannotOpen(name, err, log));
      return;
    }
    if (isPromise(acquired)) acquired.then(use, (err: unknown) => refusal(cannotOpen(name, err, log)));
    else use(acquired);
  };
  const name = registry.resolve(req.headers);
  if (isPromise(name)) name.then(take, (err: unknown) => refusal(cannotOpen(String(req.headers.host), err, log)));
  else take(name);
}

function dispatchRequests(registry: SiteRegistry<OpenSite>, log: FrontLog) {
  return (req: IncomingMessage, res: ServerResponse): void =>
    withSite(
      registry,
      req,
      res,
      (site) => site.server.emit('request', req, res),
      (error) => refuse(res, error, log),
      log,
    );
}

function dispatchUpgrades(registry: SiteRegistry<OpenSite>, log: FrontLog) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void =>
    withSite(
      registry,
      req,
      socket,
      (site) => site.server.emit('upgrade', req, socket, head),
      (error) => refuseUpgrade(socket, error, log),
      log,
    );
}
