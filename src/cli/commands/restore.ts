import { restoreSite } from '../../site/site-restore.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';

/** `fw restore --help` */
export const restoreUsage = `Usage: fw restore <archive> [--site <dir>] [--db <url>] [--force]

Restores a backup written by fw backup into a site folder (and database), then migrates it.

  --site <dir>   the site folder (default ./sites/default)
  --db <url>     the database to restore into (written into the restored config)
  --force        replace a site that already exists there

Environment: FW_SITE, FW_DB_URL`;

/**
 * `fw restore <archive> [--site <dir>] [--db <url>] [--force]`: restores a backup into a site
 * folder (and database), then migrates it. Replacing an existing site needs --force.
 */
export async function restoreCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { site: { type: 'string' }, db: { type: 'string' }, force: { type: 'boolean' } }, true);
  const archive = positionals[0];
  if (!archive || positionals.length > 1) throw new UsageError('give exactly one backup archive');
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  const result = await restoreSite(archive, dir, {
    dbUrl: values.db ?? process.env.FW_DB_URL,
    force: values.force ?? false,
    progress: (m) => process.stderr.write(`  ${m}\n`),
  });
  console.log(`Restored ${archive} into ${dir} (${result.engine}; ${result.migration.custom} custom DocTypes)`);
  return 0;
}
