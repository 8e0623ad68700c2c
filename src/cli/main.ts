import { backupCommand } from './commands/backup.js';
import { filesCommand, filesUsage } from './commands/files.js';
import { migrateCommand } from './commands/migrate.js';
import { maintenanceCommand, maintenanceUsage } from './commands/maintenance.js';
import { mailCommand, mailUsage } from './commands/mail.js';
import { newSiteCommand } from './commands/new-site.js';
import { dropSiteCommand, dropSiteUsage } from './commands/drop-site.js';
import { restoreCommand } from './commands/restore.js';
import { serveCommand } from './commands/serve.js';
import { typesCommand, typesUsage } from './commands/types.js';
import { userCommand } from './commands/user.js';
import { workerCommand } from './commands/worker.js';
import { readFileSync } from 'node:fs';
import { asksForHelp, type Command } from './command.js';
import { backupUsage } from './commands/backup.js';
import { migrateUsage } from './commands/migrate.js';
import { newSiteUsage } from './commands/new-site.js';
import { restoreUsage } from './commands/restore.js';
import { serveUsage } from './commands/serve.js';
import { userUsage } from './commands/user.js';
import { workerUsage } from './commands/worker.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: fw <command> [options]     (in a checkout: node bin/fw.js <command> [options])
       fw <command> --help           that command's options
       fw --version

Commands:
  new-site <dir> [--db <url>] [--admin-password <pw>]   create a site
  serve [--site <dir>] [--host <h>] [--port <n>] [--db <url>] [--workers <n|auto>] [--jobs <n>]
                                                        serve a site (created first when missing);
                                                        each process also runs <n> background jobs (default 2)
  serve --sites <dir> [--default-site <name>] [--site-idle <s>]
                                                        serve every site folder under <dir>, chosen by Host
  drop-site <dir> [--yes]                               delete a site (and the PostgreSQL database fw created)
  worker [--site <dir>] [--db <url>] [--concurrency <n>] [--queue <q> ...]
                                                        a process that only runs background jobs
  user add <email> [--password <pw>] [--first-name <n>] [--role <R> ...]
  user set-password <user> [--password <pw>]
  user keys <user> | user disable <user> | user enable <user>
                                                        manage users (all take --site <dir>)
  migrate [--site <dir>] [--db <url>]                   after an upgrade: sync every DocType's table
  backup [--site <dir>] [--out <file>] [--db <url>]     write database, config and files into one .tar.gz
  restore <archive> [--site <dir>] [--db <url>] [--force]
                                                        restore a backup into a site folder, then migrate
  types [--site <dir>] [--out <file>]                   TypeScript types of every DocType, for clients
  mail test <address> [--site <dir>] [--account <name>] send a test mail now; on failure name the step that failed
  files migrate --to s3|local [--site <dir>]            copy the site's files to the other storage backend

Environment: FW_SITE, FW_SITES, FW_HOST, FW_PORT, FW_DB_URL, FW_WORKERS, FW_JOBS, FW_ADMIN_PASSWORD, FW_USER_PASSWORD,
             FW_LOG_LEVEL, FW_LOG_FORMAT`;

const COMMANDS: Record<string, Command> = {
  'new-site': { run: newSiteCommand, usage: newSiteUsage },
  'drop-site': { run: dropSiteCommand, usage: dropSiteUsage },
  serve: { run: serveCommand, usage: serveUsage },
  migrate: { run: migrateCommand, usage: migrateUsage },
  backup: { run: backupCommand, usage: backupUsage },
  restore: { run: restoreCommand, usage: restoreUsage },
  user: { run: userCommand, usage: userUsage },
  worker: { run: workerCommand, usage: workerUsage },
  maintenance: { run: maintenanceCommand, usage: maintenanceUsage },
  types: { run: typesCommand, usage: typesUsage },
  mail: { run: mailCommand, usage: mailUsage },
  files: { run: filesCommand, usage: filesUsage },
};

/** fw's version, from its package.json (two folders up from src/cli and dist/cli alike). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    // `fw help serve` answers like `fw serve --help`.
    const topic = name === 'help' && rest[0] !== undefined && Object.hasOwn(COMMANDS, rest[0]) ? COMMANDS[rest[0]] : undefined;
    console.log(topic?.usage ?? USAGE);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(`fw ${version()}`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`fw: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  if (asksForHelp(rest)) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`fw ${name}: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    console.error(`fw ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
