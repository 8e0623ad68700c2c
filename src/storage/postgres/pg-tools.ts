import { runProgram } from '../run-program.js';

const INSTALL_HINT =
  "install the PostgreSQL client tools, at least the server's major version " +
  '(Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), or put their folder on PATH';

/** node-postgres URL parameters that libpq, and so pg_dump and pg_restore, would refuse. */
const DRIVER_ONLY_PARAMETERS = ['ssl', 'uselibpqcompat'];

/**
 * How the libpq tools reach the database a `postgres://` URL names: the URL without its password,
 * which travels in PGPASSWORD so it never shows in a process list, and without the parameters only
 * node-postgres knows (`ssl=true` and `sslmode=no-verify` become `sslmode=require`).
 */
export function libpqConnection(url: string): { uri: string; env: Record<string, string> } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Forms only libpq parses (`postgres://user@/db?host=/socket`): handed over untouched.
    return { uri: url, env: {} };
  }
  const env: Record<string, string> = {};
  const password = u.password ? decodeURIComponent(u.password) : u.searchParams.get('password');
  if (password) env.PGPASSWORD = password;
  u.password = '';
  u.searchParams.delete('password');
  const ssl = u.searchParams.get('ssl');
  if (ssl !== null && !u.searchParams.has('sslmode')) {
    u.searchParams.set('sslmode', ssl === '0' || ssl === 'false' ? 'disable' : 'require');
  }
  // node-postgres's "encrypt, do not verify" is libpq's `require`.
  if (u.searchParams.get('sslmode') === 'no-verify') u.searchParams.set('sslmode', 'require');
  for (const name of DRIVER_ONLY_PARAMETERS) u.searchParams.delete(name);
  return { uri: u.toString(), env };
}

/** pg_dump --verbose's line for each table whose rows it starts to dump. */
const DUMPING_TABLE = /dumping contents of table /;

/**
 * Dumps the database `url` names into `toFile` in pg_dump's custom format (compressed, for
 * pg_restore). With `onTable`, pg_dump runs verbose and `onTable` hears of each table it starts.
 */
export async function pgDump(url: string, toFile: string, onTable?: () => void): Promise<void> {
  const { uri, env } = libpqConnection(url);
  const args = ['--format=custom', `--file=${toFile}`, `--dbname=${uri}`];
  if (onTable) args.push('--verbose');
  const onStderrLine = onTable ? (line: string) => void (DUMPING_TABLE.test(line) && onTable()) : undefined;
  await runProgram('pg_dump', args, { env, whenMissing: INSTALL_HINT, onStderrLine });
}

/**
 * Restores a custom-format dump into the database `url` names, in one transaction: the objects the
 * dump holds are dropped and recreated, owned by the connecting user; on any error nothing changes.
 */
export async function pgRestore(url: string, fromFile: string): Promise<void> {
  const { uri, env } = libpqConnection(url);
  await runProgram('pg_restore', ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', `--dbname=${uri}`, fromFile], {
    env,
    whenMissing: INSTALL_HINT,
  });
}
