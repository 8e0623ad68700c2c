import { startSiteWorker } from '../../site/site-jobs.js';
import type { JobLogger } from '../../jobs/job-worker.js';
import { openSite, siteExists } from '../../site/open-site.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';
import { logFormat, prettyLogStream } from '../log-format.js';
import { jsonLineLog, type ProcessLog } from '../process-log.js';

/** `fw worker --help` */
export const workerUsage = `Usage: fw worker [--site <dir>] [--db <url>] [--concurrency <n>] [--queue <q> ...]

A process that only runs background jobs, webhook deliveries and the scheduler, until SIGTERM or
SIGINT; then it finishes the jobs in flight.

  --site <dir>        the site folder (default ./sites/default)
  --db <url>          overrides the site's db_url for this run
  --concurrency <n>   jobs at once (default 2)
  --queue <q>         only these queues (repeatable; default every queue)

Environment: FW_SITE, FW_DB_URL, FW_JOBS, FW_LOG_LEVEL, FW_LOG_FORMAT`;

/** `--jobs` / `--concurrency`: how many jobs one process runs at once (0 allowed where serving is its main work). */
export function parseJobConcurrency(text: string | undefined, min = 0): number | undefined {
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > 256) throw new UsageError(`the job concurrency must be a whole number from ${min} to 256, got "${text}"`);
  return n;
}

/** The worker's JobLogger on top of the JSON line log (errors become their message and stack). */
function jobLogger(log: ProcessLog): JobLogger {
  const fields = (obj: object) => {
    const out: Record<string, unknown> = { ...obj };
    if (out.err instanceof Error) out.err = { message: out.err.message, stack: out.err.stack };
    return out;
  };
  return {
    info: (obj, msg) => log.info(msg, fields(obj)),
    warn: (obj, msg) => log.warn(msg, fields(obj)),
    error: (obj, msg) => log.error(msg, fields(obj)),
  };
}

/**
 * `fw worker [--site <dir>] [--db <url>] [--concurrency <n>] [--queue <name> ...]`: a process that
 * only runs background jobs (docs/jobs.md), until SIGTERM or SIGINT; then it finishes the jobs in
 * flight and exits.
 */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions(argv, {
    site: { type: 'string' },
    db: { type: 'string' },
    concurrency: { type: 'string' },
    queue: { type: 'string', multiple: true },
  });
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const concurrency = parseJobConcurrency(values.concurrency ?? process.env.FW_JOBS, 1) ?? 2;
  const level = process.env.FW_LOG_LEVEL ?? 'info';
  const pretty = logFormat(process.env.FW_LOG_FORMAT, process.stdout.isTTY === true) === 'pretty' ? prettyLogStream() : undefined;
  const log = pretty ? jsonLineLog(level, (line) => pretty.write(line)) : jsonLineLog(level);
  const stopped = new Promise<string>((resolve) => {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
  });
  const site = await openSite(dir, { dbUrl: values.db ?? process.env.FW_DB_URL });
  // FW_SCHEDULER_TICK_MS: how often the scheduler looks for due slots (default 30 s; tests shorten it).
  const tick = Number(process.env.FW_SCHEDULER_TICK_MS);
  const worker = startSiteWorker(site, {
    concurrency,
    queues: values.queue,
    logger: jobLogger(log),
    schedulerTickMs: Number.isInteger(tick) && tick > 0 ? tick : undefined,
  });
  log.info(`worker running jobs of ${values.queue?.join(', ') ?? 'every queue'} (concurrency ${concurrency})`);
  const signal = await stopped;
  log.info(`${signal}: finishing jobs in flight`);
  await worker.stop();
  await site.close();
  log.info('stopped');
  return 0;
}
