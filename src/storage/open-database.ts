import type { Database } from './database.js';
import type { DatabaseEngine, Dialect } from './dialect.js';
import { openSqliteReadOnly } from './sqlite/read-only-open.js';
import { SqliteDatabase } from './sqlite/sqlite-database.js';

/** Options for opening a site's database. */
export interface OpenDatabaseOptions {
  /** PostgreSQL connections this process may hold (default 10); ignored by SQLite. */
  readonly poolSize?: number;
  /** PostgreSQL: how long to wait for a connection (default 5 s). */
  readonly connectionTimeoutMs?: number;
  /** PostgreSQL: server-side limit on one statement (default 30 s); raise it for long migrations. */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL: keep hot statements prepared by name (default true; off behind a pooler that cannot). */
  readonly preparedStatements?: boolean;
  /** SQLite: open every connection read-only (a backup); PostgreSQL ignores it. */
  readonly readOnly?: boolean;
  /** With readOnly: a writable folder for a copy, when the file cannot be opened in place (read-only-open.ts). */
  readonly snapshotDir?: string;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** The SQLite file a `sqlite:<path>`, `sqlite://<path>` or plain path URL names. */
function sqlitePath(url: string): string {
  if (!/^sqlite:/i.test(url)) return url;
  const rest = url.slice('sqlite:'.length);
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The engine a database URL names, known before anything is opened (a backup fits only its own engine). */
export function databaseEngine(url: string): Dialect['name'] {
  return isPostgresUrl(url) ? 'postgres' : 'sqlite';
}

const ENGINES: Readonly<Record<Dialect['name'], DatabaseEngine>> = {
  sqlite: {
    name: 'sqlite',
    dumpMember: 'database.sqlite',
    databaseFiles: (file) => (file === ':memory:' ? [] : [file, `${file}-wal`, `${file}-shm`]),
    describe: (file) => `SQLite ${file}`,
  },
  postgres: {
    name: 'postgres',
    dumpMember: 'database.pgdump',
    databaseFiles: () => [],
    describe: (url) => `PostgreSQL ${describeDatabaseUrl(url)}`,
    serverDatabases: async () => {
      // Loaded only for a PostgreSQL site (docs/deployment.md).
      const { ensurePostgresDatabase, dropCreatedDatabase } = await import('./postgres/create-database.js');
      return { ensure: ensurePostgresDatabase, drop: dropCreatedDatabase };
    },
  },
};

/** The engine a database URL names (the URL is checked elsewhere: database-url.ts). */
export function engineOf(url: string): DatabaseEngine {
  return ENGINES[databaseEngine(url)];
}

/** The engine of a dialect's name. */
export function engineByName(name: Dialect['name']): DatabaseEngine {
  return ENGINES[name];
}

/** The engine of a name read from outside (a backup's manifest), or undefined for a name fw does not know. */
export function engineNamed(name: unknown): DatabaseEngine | undefined {
  return typeof name === 'string' && Object.hasOwn(ENGINES, name) ? ENGINES[name as Dialect['name']] : undefined;
}

/** `host:port/database` of a PostgreSQL URL, for messages (never the password). */
function postgresTarget(url: string): string {
  try {
    const u = new URL(url);
    const socketHost = u.searchParams.get('host');
    const host = u.hostname || socketHost || 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return describeDatabaseUrl(url);
  }
}

/** The URL with any password replaced by `***`, safe to log. */
export function describeDatabaseUrl(url: string): string {
  if (!url.includes('://')) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    // Not parseable as a URL: hide whatever sits between `user:` and `@`.
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const { readOnly: _readOnly, snapshotDir: _snapshotDir, ...pgOptions } = options;
  // Loaded only for a PostgreSQL site: a SQLite site never pays for pg's modules (docs/deployment.md).
  const { PostgresDatabase } = await import('./postgres/postgres-database.js');
  const db = new PostgresDatabase({ connectionString: url, ...pgOptions });
  try {
    await db.read((q) => q.all({ sql: 'select 1', parameters: [] }));
    return db;
  } catch (err) {
    await db.close();
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    throw new Error(
      `Could not reach PostgreSQL at ${postgresTarget(url)} (${reason}). Check that the server is running ` +
        `and accepts connections there, and that the user, password and database name in the database URL ` +
        `(${describeDatabaseUrl(url)}) are right.`,
      { cause: err },
    );
  }
}

/**
 * Opens the database a URL names: `postgres://` or `postgresql://` for PostgreSQL, `sqlite:<path>`,
 * `sqlite://<path>` or a plain file path for SQLite. The only place that chooses a dialect by name.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (isPostgresUrl(url)) return openPostgres(url, options);
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  // One-letter schemes are Windows drive letters (C:\site\db.sqlite), i.e. plain paths.
  if (scheme && scheme !== 'sqlite' && scheme.length > 1) {
    throw new Error(`Unsupported database URL ${describeDatabaseUrl(url)}: use postgres://..., sqlite:<path> or a file path`);
  }
  const path = sqlitePath(url);
  if (!path) throw new Error(`The database URL ${url} names no SQLite file`);
  try {
    if (options.readOnly) return await openSqliteReadOnly(path, options.snapshotDir);
    return new SqliteDatabase(path);
  } catch (err) {
    throw new Error(`Could not open the SQLite database ${path}: ${(err as Error).message}`, { cause: err });
  }
}
