import pg from 'pg';

/** Runs `work` on one client connected to `url`, then disconnects. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'fw' });
  // A server that drops the connection emits 'error' on the client; the query in flight fails with it.
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** An identifier quoted for PostgreSQL (a database name may hold any character). */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A word quoted for a POSIX shell, only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Makes sure the database a `postgres://` URL names exists, for `fw new-site`: connects to it; when
 * the server answers that it does not exist (3D000), connects to the `postgres` maintenance
 * database with the same role and creates it. A role that may not create databases gets the exact
 * `createdb` to run instead (docs/deployment.md). True when it created the database. Any other
 * failure to connect is left to openDatabase, which reports it with what to check.
 */
export async function ensurePostgresDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  try {
    await withClient(url, async () => {});
    return false;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000' || name === '') return false;
  }
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  try {
    await withClient(maintenance.toString(), (client) => client.query(`CREATE DATABASE ${quoteIdentifier(name)}`));
    return true;
  } catch (err) {
    // Created meanwhile by someone else: what we wanted.
    if ((err as { code?: string }).code === '42P04') return false;
    const host = target.hostname || target.searchParams.get('host') || 'localhost';
    const role = decodeURIComponent(target.username) || process.env.USER || 'postgres';
    const createdb = ['createdb', `--host=${host}`, `--port=${target.port || '5432'}`, `--owner=${role}`, name].map(shellWord).join(' ');
    throw new Error(
      `The PostgreSQL database "${name}" does not exist on ${host}:${target.port || '5432'}, and the role "${role}" could not create it ` +
        `(${(err as Error).message}). Create it as a role that may (a superuser, or one with CREATEDB; add --username=<that role>):\n` +
        `  ${createdb}\nthen run new-site again.`,
      { cause: err },
    );
  }
}

/** Drops a database ensurePostgresDatabase created, when the site creation that wanted it failed. */
export async function dropCreatedDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  await withClient(maintenance.toString(), (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}`));
}

/**
 * Drops a site's database for `fw drop-site`, ending the sessions still connected to it (a server
 * still serving the site): PostgreSQL 13's `WITH (FORCE)`.
 */
export async function dropSiteDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  await withClient(maintenance.toString(), (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
}
