import { siteExists } from '../../site/open-site.js';
import { backupSite } from '../../site/site-backup.js';
import { parseOptions } from '../parse-options.js';

/** `fw backup --help` */
export const backupUsage = `Usage: fw backup [--site <dir>] [--out <file>] [--db <url>]

Writes the database, site_config.json and the file folders into one .tar.gz (default
<site>/private/backups/<site>-<time>.tar.gz) and prints its path. The site may keep serving.

  --site <dir>   the site folder (default ./sites/default)
  --out <file>   the archive to write (must not exist)
  --db <url>     overrides the site's db_url for this run

Environment: FW_SITE, FW_DB_URL`;

/**
 * `fw backup [--site <dir>] [--out <file>] [--db <url>]`: writes one .tar.gz holding the database
 * dump, site_config.json and the file folders; prints the archive's path.
 */
export async function backupCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions(argv, { site: { type: 'string' }, out: { type: 'string' }, db: { type: 'string' } });
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const file = await backupSite(dir, {
    dbUrl: values.db ?? process.env.FW_DB_URL,
    out: values.out,
    // Progress is for a person watching; a script or cron job gets only the archive's path.
    progress: process.stderr.isTTY ? (m) => process.stderr.write(`  ${m}\n`) : undefined,
  });
  console.log(`Backup of ${dir} written to ${file}`);
  return 0;
}
