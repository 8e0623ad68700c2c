import { backupCommand } from './commands/backup.js';
import { migrateCommand } from './commands/migrate.js';
import { newSiteCommand } from './commands/new-site.js';
import { restoreCommand } from './commands/restore.js';
import { serveCommand } from './commands/serve.js';
import { userCommand } from './commands/user.js';
import { workerCommand } from './commands/worker.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: fw <command> [options]

Commands:
  new-site <dir> [--db <url>] [--admin-password <pw>]   create a site
  serve [--site <dir>] [--host <h>] [--port <n>] [--db <url>] [--workers <n|auto>] [--jobs <n>]
                                                        serve a site (created first when missing);
                                                        each process also runs <n> background jobs (default 2)
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

Environment: FW_SITE, FW_HOST, FW_PORT, FW_DB_URL, FW_WORKERS, FW_JOBS, FW_ADMIN_PASSWORD, FW_USER_PASSWORD`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  'new-site': newSiteCommand,
  serve: serveCommand,
  migrate: migrateCommand,
  backup: backupCommand,
  restore: restoreCommand,
  user: userCommand,
  worker: workerCommand,
};

/** Runs the CLI; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`fw: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`fw ${name}: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`fw ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
