import cluster from 'node:cluster';
import { createSite, openSite, siteExists } from '../../site/open-site.js';
import { loadSiteConfig } from '../../site/site-config.js';
import { sitePaths } from '../../site/site-paths.js';
import { runClusterPrimary } from '../cluster-primary.js';
import { weakAdminWarning } from '../password-warning.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';
import { logFormat, prettyLogStream } from '../log-format.js';
import { jsonLineLog } from '../process-log.js';
import { listeningUrl, serveBanner } from '../serve-banner.js';
import { serveSite } from '../serve-site.js';
import { parseWorkerCount } from '../worker-count.js';
import { parseJobConcurrency } from './worker.js';
import { serveSites } from '../serve-sites.js';
import { readDefaultSite } from '../../site-router/common-site-config.js';

/** `fw serve --help` */
export const serveUsage = `Usage: fw serve [--site <dir>] [--host <h>] [--port <n>] [--db <url>] [--workers <n|auto>]
                [--jobs <n>] [--socketio-port <n>]
       fw serve --sites <dir> [--default-site <name>] [--site-idle <s>] [--host <h>] [--port <n>] [--jobs <n>]

Serves a site, creating it first when the folder holds none. SIGTERM or SIGINT finish the
requests in flight and close the database. With --sites, serves every site folder under <dir>,
each named after its host name (create them with fw new-site <dir>/<host>).

  --site <dir>           the site folder (default ./sites/default)
  --sites <dir>          serve every site under <dir>: a request's site is its Host without the port
                         (or X-Frappe-Site-Name where that site's trust_site_header allows)
  --default-site <name>  with --sites: the site for a Host naming none (default: common_site_config.json's
                         default_site)
  --site-idle <s>        with --sites: close a site unused for this many seconds (default 0: never)
  --host <h>             address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  --port <n>             port (default 8000)
  --db <url>             overrides the site's db_url for this run
  --workers <n|auto>     processes sharing the port (default 1; auto: one per core)
  --jobs <n>             background jobs each process runs at once (default 2; 0: none)
  --socketio-port <n>    a second port for Socket.IO clients

Environment: FW_SITE, FW_SITES, FW_DEFAULT_SITE, FW_SITE_IDLE, FW_HOST, FW_PORT, FW_DB_URL, FW_WORKERS, FW_JOBS, FW_SOCKETIO_PORT,
FW_ADMIN_PASSWORD (when the site is created), FW_LOG_LEVEL (info; debug, warn, error, silent),
FW_LOG_FORMAT (pretty on a terminal, json otherwise)`;

/**
 * `fw serve [--site <dir>] [--host <h>] [--port <n>] [--db <url>] [--workers <n|auto>]
 * [--socketio-port <n>]`: serves the site, creating it first when the folder holds none. With more than one worker this process
 * becomes the cluster primary and each worker runs this command again to serve. SIGTERM or SIGINT
 * stops accepting, lets requests in flight finish and closes the database.
 */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    site: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    db: { type: 'string' },
    workers: { type: 'string' },
    jobs: { type: 'string' },
    'socketio-port': { type: 'string' },
    sites: { type: 'string' },
    'default-site': { type: 'string' },
    'site-idle': { type: 'string' },
  });
  const sitesDir = values.sites ?? (values.site === undefined ? process.env.FW_SITES : undefined);
  if (sitesDir !== undefined) return serveSitesCommand(sitesDir, values);
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  const host = values.host ?? process.env.FW_HOST ?? '127.0.0.1';
  const portText = values.port ?? process.env.FW_PORT ?? '8000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${portText}"`);
  const workers = parseWorkerCount(values.workers ?? process.env.FW_WORKERS);
  const dbUrl = values.db ?? process.env.FW_DB_URL;
  const logLevel = process.env.FW_LOG_LEVEL ?? 'info';
  const format = logFormat(process.env.FW_LOG_FORMAT, process.stdout.isTTY === true);
  const jobConcurrency = parseJobConcurrency(values.jobs ?? process.env.FW_JOBS);
  const socketioText = values['socketio-port'] ?? process.env.FW_SOCKETIO_PORT;
  const socketioPort = socketioText === undefined ? undefined : Number(socketioText);
  if (socketioPort !== undefined && (!Number.isInteger(socketioPort) || socketioPort < 0 || socketioPort > 65535)) {
    throw new UsageError(`--socketio-port must be a port number, got "${socketioText}"`);
  }
  const serve = { dir, host, port, dbUrl, logLevel, logFormat: format, jobConcurrency, socketioPort };

  // The primary prepared the site before forking; a worker only serves it.
  if (cluster.isWorker) return serveSite(serve);

  let passwordSource = 'set when the site was created (change it: fw user set-password Administrator)';
  if (!(await siteExists(dir))) {
    console.log(`No site in ${dir}: creating one`);
    const adminPassword = process.env.FW_ADMIN_PASSWORD;
    const result = await createSite(dir, { dbUrl, adminPassword });
    if (result.generatedPassword) console.log(`Administrator password (shown once): ${result.generatedPassword}`);
    if (result.weakAdminPassword) process.stderr.write(weakAdminWarning(result.weakAdminPassword));
    passwordSource = result.generatedPassword ? 'generated for this new site, printed above once' : 'FW_ADMIN_PASSWORD, given when this site was created';
  }
  const dbInUse = dbUrl ?? (await loadSiteConfig(sitePaths(dir).config)).db_url;
  const banner = format === 'pretty' ? (url: string) => serveBanner({ url, dir, dbUrl: dbInUse, passwordSource, workers }) : undefined;
  if (workers === 1) return serveSite({ ...serve, banner });

  // Opening once here brings the schema up to date and reports an unreachable database as one
  // clear error, before any worker exists.
  await (await openSite(dir, { dbUrl })).close();
  const pretty = prettyLogStream();
  const log = format === 'pretty' ? jsonLineLog(logLevel, (line) => pretty.write(line)) : jsonLineLog(logLevel);
  return runClusterPrimary({
    workers,
    log,
    onReady: banner ? (listeningPort) => process.stdout.write(banner(listeningUrl(host, listeningPort))) : undefined,
  });
}

/**
 * `fw serve --sites <dir>`: every site folder under <dir> in this process, chosen per request
 * (docs/deployment.md "Several sites in one process"). One process only: `--workers` would have to
 * keep each site's realtime order across workers, which the cluster relay does not do per site.
 */
async function serveSitesCommand(dir: string, values: Record<string, string | boolean | undefined>): Promise<number> {
  const text = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  if (text('site') !== undefined) throw new UsageError('give either --site or --sites, not both');
  if (text('socketio-port') !== undefined) throw new UsageError('--socketio-port is not available with --sites: clients connect Socket.IO to the main port');
  if (text('db') !== undefined) throw new UsageError('--db names one database: with --sites each site keeps its own db_url in its site_config.json');
  const workers = parseWorkerCount(text('workers') ?? process.env.FW_WORKERS);
  if (workers !== 1) throw new UsageError('--sites serves from one process: run several fw serve --sites behind the load balancer instead of --workers');
  const host = text('host') ?? process.env.FW_HOST ?? '127.0.0.1';
  const portText = text('port') ?? process.env.FW_PORT ?? '8000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${portText}"`);
  const idleText = text('site-idle') ?? process.env.FW_SITE_IDLE ?? '0';
  const idleSeconds = Number(idleText);
  if (!Number.isFinite(idleSeconds) || idleSeconds < 0) throw new UsageError(`--site-idle must be a number of seconds, got "${idleText}"`);
  const defaultSite = text('default-site') ?? process.env.FW_DEFAULT_SITE ?? (await readDefaultSite(dir));
  const format = logFormat(process.env.FW_LOG_FORMAT, process.stdout.isTTY === true);
  return serveSites({
    dir,
    host,
    port,
    defaultSite,
    idleSeconds,
    logLevel: process.env.FW_LOG_LEVEL ?? 'info',
    logFormat: format,
    jobConcurrency: parseJobConcurrency(text('jobs') ?? process.env.FW_JOBS),
  });
}
