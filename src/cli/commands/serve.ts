import cluster from 'node:cluster';
import { createSite, openSite, siteExists } from '../../site/open-site.js';
import { runClusterPrimary } from '../cluster-primary.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';
import { jsonLineLog } from '../process-log.js';
import { serveSite } from '../serve-site.js';
import { parseWorkerCount } from '../worker-count.js';
import { parseJobConcurrency } from './worker.js';

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
  });
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  const host = values.host ?? process.env.FW_HOST ?? '127.0.0.1';
  const portText = values.port ?? process.env.FW_PORT ?? '8000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${portText}"`);
  const workers = parseWorkerCount(values.workers ?? process.env.FW_WORKERS);
  const dbUrl = values.db ?? process.env.FW_DB_URL;
  const logLevel = process.env.FW_LOG_LEVEL ?? 'info';
  const jobConcurrency = parseJobConcurrency(values.jobs ?? process.env.FW_JOBS);
  const socketioText = values['socketio-port'] ?? process.env.FW_SOCKETIO_PORT;
  const socketioPort = socketioText === undefined ? undefined : Number(socketioText);
  if (socketioPort !== undefined && (!Number.isInteger(socketioPort) || socketioPort < 0 || socketioPort > 65535)) {
    throw new UsageError(`--socketio-port must be a port number, got "${socketioText}"`);
  }
  const serve = { dir, host, port, dbUrl, logLevel, jobConcurrency, socketioPort };

  // The primary prepared the site before forking; a worker only serves it.
  if (cluster.isWorker) return serveSite(serve);

  if (!(await siteExists(dir))) {
    console.log(`No site in ${dir}: creating one`);
    const result = await createSite(dir, { dbUrl, adminPassword: process.env.FW_ADMIN_PASSWORD });
    if (result.generatedPassword) console.log(`Administrator password (shown once): ${result.generatedPassword}`);
  }
  if (workers === 1) return serveSite(serve);

  // Opening once here brings the schema up to date and reports an unreachable database as one
  // clear error, before any worker exists.
  await (await openSite(dir, { dbUrl })).close();
  return runClusterPrimary({ workers, log: jsonLineLog(logLevel) });
}
