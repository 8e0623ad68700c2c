import { openSite, siteExists } from '../../site/open-site.js';
import { sendTestMail } from '../../mail/test-mail.js';
import { stageLabel } from '../../mail/smtp-failure.js';
import { parseOptions } from '../parse-options.js';
import { UsageError } from '../usage-error.js';

/** `fw mail --help` */
export const mailUsage = `Usage: fw mail test <address> [--site <dir>] [--account <name>] [--db <url>]

Sends one test mail to <address> right away, through the Email Account named by --account, or the
default outgoing Email Account, or the mail_server keys of site_config.json (docs/mail.md). On failure
it names the step that failed: DNS, connect, TLS, authentication or recipient refused, with the
server's reply, and exits with status 1.

  --site <dir>      the site folder (default ./sites/default)
  --account <name>  the Email Account to send through
  --db <url>        overrides the site's db_url for this run

Environment: FW_SITE, FW_DB_URL`;

/** `fw mail test <address>`: a test mail that says what failed. */
export async function mailCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { site: { type: 'string' }, account: { type: 'string' }, db: { type: 'string' } }, true);
  const [verb, address, ...rest] = positionals;
  if (verb !== 'test' || !address || rest.length > 0) throw new UsageError('fw mail test <address> [--site <dir>] [--account <name>]');
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE)`);
  const site = await openSite(dir, { dbUrl: values.db ?? process.env.FW_DB_URL });
  try {
    const result = await sendTestMail(
      (work) =>
        site.db.read((q) => work({ q, dialect: site.db.dialect, metas: site.metas, encryptionKey: site.config.encryption_key, config: site.config.mail })),
      address,
      site.config.realtime.site_name ?? 'localhost',
      values.account,
    );
    if (result.ok) {
      process.stdout.write(
        `Sent a test mail to ${address} through ${result.account ? `Email Account ${result.account}` : 'site_config.json'} (${result.server}).\nMessage-ID: ${result.messageId}\nServer: ${result.response}\n`,
      );
      return 0;
    }
    process.stderr.write(`fw: ${stageLabel(result.failure.stage)}.\n${result.failure.message}\n`);
    return 1;
  } finally {
    await site.close();
  }
}
