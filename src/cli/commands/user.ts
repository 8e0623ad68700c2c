import { DuplicateEntryError, UniqueValidationError } from '../../errors/index.js';
import { openSite, siteExists } from '../../site/open-site.js';
import type { Site } from '../../site/site.js';
import { addUser, changePassword, generatePassword, generateUserKeys, setUserEnabled } from '../../site/user-admin.js';
import { UsageError } from '../usage-error.js';
import { parseOptions } from '../parse-options.js';

/** `fw user --help` */
export const userUsage = `Usage: fw user add <email> [--password <pw>] [--first-name <name>] [--role <Role> ...]
       fw user set-password <user> [--password <pw>]
       fw user keys <user>
       fw user disable <user>
       fw user enable <user>

User administration on the server, acting as the Administrator. <user> is a user's name or email.
Every subcommand takes --site <dir> (default ./sites/default) and --db <url>.

  add           creates a user; without --password one is generated and printed once
  set-password  sets a password (generated and printed when absent); the user's sessions end
  keys          prints a fresh api_key:api_secret on stdout; the previous secret stops working
  disable       ends the user's sessions and refuses their API keys until enabled again
  enable        lets a disabled user log in again

Passwords: at least 8 characters; with enable_password_policy, as strong as minimum_password_score.
Environment: FW_SITE, FW_DB_URL, FW_USER_PASSWORD`;

const SITE_OPTIONS = { site: { type: 'string' }, db: { type: 'string' } } as const;

/** Opens the site named by --site / FW_SITE (default ./sites/default), runs `work`, closes it. */
async function withSite<T>(values: { site?: string; db?: string }, work: (site: Site) => Promise<T>): Promise<T> {
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  if (!(await siteExists(dir))) {
    throw new Error(`No site in ${dir}: pass --site <dir> (or set FW_SITE), or create one with \`fw new-site ${dir}\``);
  }
  const site = await openSite(dir, { dbUrl: values.db ?? process.env.FW_DB_URL });
  try {
    return await work(site);
  } finally {
    await site.close();
  }
}

/** The one user argument every subcommand takes. */
function userArgument(positionals: string[], what: string): string {
  if (positionals.length !== 1 || positionals[0].trim() === '') throw new UsageError(`give exactly one ${what}`);
  return positionals[0];
}

async function add(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(
    argv,
    { ...SITE_OPTIONS, password: { type: 'string' }, 'first-name': { type: 'string' }, role: { type: 'string', multiple: true } },
    true,
  );
  const email = userArgument(positionals, 'email address');
  const password = values.password ?? process.env.FW_USER_PASSWORD;
  const result = await withSite(values, (site) =>
    addUser(site, { email, password, firstName: values['first-name'], roles: values.role }).catch((err: unknown) => {
      if (err instanceof DuplicateEntryError || err instanceof UniqueValidationError) {
        throw new Error(`${err.message}; to change that user, use \`fw user set-password\`, \`fw user enable\` or \`fw user disable\``);
      }
      throw err;
    }),
  );
  console.log(`Added user ${result.name}`);
  if (result.generatedPassword) console.log(`Password (shown once): ${result.generatedPassword}`);
  return 0;
}

async function setPassword(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { ...SITE_OPTIONS, password: { type: 'string' } }, true);
  const user = userArgument(positionals, 'user (email or name)');
  const given = values.password ?? process.env.FW_USER_PASSWORD;
  const password = given ?? generatePassword();
  const name = await withSite(values, (site) => changePassword(site, user, password));
  console.log(`Password of ${name} changed; their sessions have ended (API keys still work)`);
  if (given === undefined) console.log(`Password (shown once): ${password}`);
  return 0;
}

async function keys(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, SITE_OPTIONS, true);
  const user = userArgument(positionals, 'user (email or name)');
  const creds = await withSite(values, (site) => generateUserKeys(site, user));
  // Only the token on stdout, so `$(fw user keys ...)` captures it; the note goes to stderr.
  process.stderr.write(`API key and secret of ${creds.user} (shown once; any earlier secret no longer works):\n`);
  console.log(`${creds.apiKey}:${creds.apiSecret}`);
  return 0;
}

function enabling(enabled: boolean) {
  return async (argv: string[]): Promise<number> => {
    const { values, positionals } = parseOptions(argv, SITE_OPTIONS, true);
    const user = userArgument(positionals, 'user (email or name)');
    const name = await withSite(values, (site) => setUserEnabled(site, user, enabled));
    console.log(
      enabled
        ? `Enabled ${name}: they can log in again and their API keys work again`
        : `Disabled ${name}: their sessions have ended and their API keys are refused until \`fw user enable\``,
    );
    return 0;
  };
}

const SUBCOMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  add,
  'set-password': setPassword,
  keys,
  disable: enabling(false),
  enable: enabling(true),
};

/**
 * `fw user <add|set-password|keys|disable|enable> <user> [options]`: user administration on the
 * server, acting as the Administrator. The work lives in site/user-admin.ts.
 */
export async function userCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const run = sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!run) {
    throw new UsageError(
      sub === undefined
        ? 'give a subcommand: add, set-password, keys, disable or enable'
        : `unknown subcommand "${sub}" (add, set-password, keys, disable, enable)`,
    );
  }
  return run(rest);
}
