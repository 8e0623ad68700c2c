import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the PostgreSQL runs use when `FW_BENCH_PG_URL` does not name another. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Whether the server answers a query. */
export async function postgresReachable(adminUrl: string): Promise<boolean> {
  try {
    await withClient(adminUrl, (c) => c.query('select 1'));
    return true;
  } catch {
    return false;
  }
}

/** A new empty database `fw_bench_<random>` on the server, and how to drop it again. */
export async function createThrowawayDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `fw_bench_${randomBytes(5).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`create database "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(adminUrl, (c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

/** The URL with its password masked, for output. */
export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@]*@/, '//$1:***@');
}

/** A throwaway PostgreSQL database, and how to drop it again. */
export interface ThrowawayDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * The database one dialect's part of a bench runs on: none for SQLite (the site's own file), a
 * throwaway PostgreSQL database, or `skip` when PostgreSQL cannot be reached and was not asked for
 * by name (then unreachable is an error).
 */
export async function benchDatabase(
  dialect: 'sqlite' | 'postgres',
  options: { readonly pgUrl: string; readonly postgresRequired: boolean },
  log: (line: string) => void,
): Promise<ThrowawayDatabase | undefined | 'skip'> {
  if (dialect !== 'postgres') return undefined;
  if (!(await postgresReachable(options.pgUrl))) {
    if (options.postgresRequired) throw new Error('PostgreSQL is not reachable');
    log('  postgres: not reachable, skipped');
    return 'skip';
  }
  return createThrowawayDatabase(options.pgUrl);
}
