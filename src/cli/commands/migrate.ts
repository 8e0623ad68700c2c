import { migrateSite, type MigrationSummary } from '../../site/migrate-site.js';
import { siteExists } from '../../site/open-site.js';
import { parseOptions } from '../parse-options.js';

/** `fw migrate --help` */
export const migrateUsage = `Usage: fw migrate [--site <dir>] [--db <url>]

After an upgrade: brings the built-in DocTypes, the apps' DocTypes and every custom DocType's table
in line with their definitions. Changes nothing when everything already matches.

  --site <dir>   the site folder (default ./sites/default)
  --db <url>     overrides the site's db_url for this run

Environment: FW_SITE, FW_DB_URL`;

/**
 * `fw migrate [--site <dir>] [--db <url>]`: after an upgrade, brings the built-in DocTypes, the
 * DocTypes of the site's apps and the table of every custom DocType in line with their
 * definitions, then names the apps it synced. Safe to run again.
 */
export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions(argv, { site: { type: 'string' }, db: { type: 'string' } });
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const summary = await migrateSite(dir, {
    dbUrl: values.db ?? process.env.FW_DB_URL,
    progress: (m) => process.stderr.write(`  syncing ${m}\n`),
  });
  console.log(migrationReport(dir, summary));
  return 0;
}

/** The closing line: how many DocTypes of each kind match their definitions, and which apps were synced. */
function migrationReport(dir: string, summary: MigrationSummary): string {
  const counts = `${summary.builtIn} built-in, ${summary.apps} app and ${summary.custom} custom DocTypes match their definitions`;
  const apps = summary.appNames.length > 0 ? `apps synced: ${summary.appNames.join(', ')}` : 'no apps listed in site_config.json';
  return `Migrated ${dir}: ${counts}; ${apps}`;
}
