import { migrateFiles } from '../../files/migrate-files.js';
import { siteExists } from '../../site/open-site.js';
import { parseOptions } from '../parse-options.js';
import { UsageError } from '../usage-error.js';

/** `fw files --help` */
export const filesUsage = `Usage: fw files migrate --to s3|local [--site <dir>]

Copies every stored file of the site to the backend named by --to from the other one: the bucket
described by "file_storage" in site_config.json, or the site's public/files and private/files folders.
File URLs stay the same, so no document changes. A file the target already holds with the same
sha256 is skipped, so an interrupted run is resumed by running it again; each copy is read back and
checked against the source's hash. Nothing is deleted from the source.

Moving to a bucket: add the bucket settings to "file_storage" keeping "backend": "local", run
\`fw files migrate --to s3\`, set "backend": "s3", restart, and run it once more for files uploaded
meanwhile. Moving back: \`fw files migrate --to local\`, then set "backend": "local" (docs/files.md).

  --to s3|local  the backend to copy to
  --site <dir>   the site folder (default ./sites/default)

Environment: FW_SITE`;

/** `fw files migrate --to s3|local [--site <dir>]`: copies the site's files across backends, with progress on stderr. */
export async function filesCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'migrate') throw new UsageError(action === undefined ? 'name an action: migrate' : `unknown action "${action}"`);
  const { values } = parseOptions(rest, { site: { type: 'string' }, to: { type: 'string' } });
  if (values.to !== 's3' && values.to !== 'local') throw new UsageError('--to must be "s3" or "local"');
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const summary = await migrateFiles(dir, { to: values.to, progress: (m) => process.stderr.write(`  ${m}\n`) });
  const next =
    values.to === 's3'
      ? 'set "backend": "s3" in file_storage and restart fw (if it already is, nothing else to do)'
      : 'set "backend": "local" in file_storage and restart fw (if it already is, nothing else to do)';
  console.log(`Files of ${dir} copied to ${values.to}: ${summary.copied} copied (${summary.bytes} bytes), ${summary.skipped} already there. Next: ${next}`);
  return 0;
}
