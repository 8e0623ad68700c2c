import { createSite } from '../../site/open-site.js';
import { describeDatabaseUrl } from '../../storage/open-database.js';
import { weakAdminWarning } from '../password-warning.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';

/** `fw new-site --help` */
export const newSiteUsage = `Usage: fw new-site <dir> [--db <url>] [--admin-password <pw>]

Creates a site folder: site_config.json, the database, public/files, private/files, the built-in
DocTypes and the Administrator.

  --db <url>             sqlite:<file> (relative to <dir>; default sqlite:site.db) or
                         postgres://user[:password]@host[:port]/database (created when the role may)
  --admin-password <pw>  the Administrator's password; generated and printed once when absent

Environment: FW_DB_URL, FW_ADMIN_PASSWORD`;

/** `fw new-site <dir> [--db <url>] [--admin-password <pw>]` */
export async function newSiteCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { db: { type: 'string' }, 'admin-password': { type: 'string' } }, true);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError('give exactly one site folder');
  const adminPassword = values['admin-password'] ?? process.env.FW_ADMIN_PASSWORD;
  const result = await createSite(dir, {
    dbUrl: values.db ?? process.env.FW_DB_URL,
    adminPassword,
    progress: (m) => process.stderr.write(`  installing ${m}\n`),
    checkAdminStrength: true,
  });
  if (result.weakAdminPassword) process.stderr.write(weakAdminWarning(result.weakAdminPassword));
  if (result.createdDatabase) console.log(`Created the PostgreSQL database ${describeDatabaseUrl(values.db ?? process.env.FW_DB_URL ?? '')}`);
  console.log(`Created site in ${dir}`);
  if (result.generatedPassword) {
    console.log(`Administrator password (shown once): ${result.generatedPassword}`);
  }
  return 0;
}
