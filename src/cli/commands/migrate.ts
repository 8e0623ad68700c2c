import { migrateSite } from '../../site/migrate-site.js';
import { siteExists } from '../../site/open-site.js';
import { parseOptions } from '../parse-options.js';

/**
 * `fw migrate [--site <dir>] [--db <url>]`: after an upgrade, brings the built-in DocTypes and the
 * table of every custom DocType in line with their definitions. Safe to run again.
 */
export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions(argv, { site: { type: 'string' }, db: { type: 'string' } });
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const summary = await migrateSite(dir, {
    dbUrl: values.db ?? process.env.FW_DB_URL,
    progress: (m) => process.stderr.write(`  syncing ${m}\n`),
  });
  console.log(`Migrated ${dir}: ${summary.builtIn} built-in and ${summary.custom} custom DocTypes match their definitions`);
  return 0;
}
