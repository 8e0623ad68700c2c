import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { siteExists } from '../../site/open-site.js';
import { loadSiteConfig } from '../../site/site-config.js';
import { sitePaths } from '../../site/site-paths.js';
import { databaseEngine, describeDatabaseUrl } from '../../storage/open-database.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';

/** `fw drop-site --help` */
export const dropSiteUsage = `Usage: fw drop-site <dir> [--yes]

Deletes a site: its folder (config, SQLite database, files on local disk) and, when fw created it
(fw new-site on a PostgreSQL database that did not exist), its PostgreSQL database. A database fw
did not create is left in place. Files kept in an S3 bucket are left there. Asks for the site's
folder name to be typed unless --yes is given. A server serving the site answers 503 for it.

  --yes   do not ask`;

/** `fw drop-site <dir> [--yes]` */
export async function dropSiteCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { yes: { type: 'boolean' } }, true);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError('give exactly one site folder');
  if (!(await siteExists(dir))) throw new UsageError(`${dir} holds no site (no site_config.json)`);
  const paths = sitePaths(dir);
  const config = await loadSiteConfig(paths.config);
  const dropsDatabase = config.db_created_by_fw && databaseEngine(config.db_url) === 'postgres';
  if (!values.yes) {
    const name = paths.root.split('/').pop() ?? '';
    const what = dropsDatabase ? ` and the PostgreSQL database ${describeDatabaseUrl(config.db_url)}` : '';
    if (!process.stdin.isTTY) throw new UsageError(`refusing to delete ${paths.root}${what} without a terminal to confirm: add --yes`);
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question(`This deletes ${paths.root}${what}. Type the folder name (${name}) to confirm: `);
    prompt.close();
    if (answer.trim() !== name) {
      console.error('Not confirmed; nothing deleted');
      return 1;
    }
  }
  if (dropsDatabase) {
    const { dropSiteDatabase } = await import('../../storage/postgres/create-database.js');
    await dropSiteDatabase(config.db_url);
    console.log(`Dropped the PostgreSQL database ${describeDatabaseUrl(config.db_url)}`);
  }
  await rm(paths.root, { recursive: true, force: true });
  console.log(`Deleted site ${paths.root}`);
  return 0;
}
