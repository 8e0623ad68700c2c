import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/storage/database.js';
import { openDatabase } from '../../src/storage/open-database.js';

/** One storage engine the suites run against, and how to get a fresh empty database on it. */
export interface DialectCase {
  readonly name: 'sqlite' | 'postgres';
  /** A new empty database; `drop()` removes it. */
  createUrl(): Promise<{ url: string; drop(): Promise<void> }>;
}

const ALL = ['sqlite', 'postgres'] as const;
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function adminUrl(): string {
  return process.env.FW_TEST_PG_URL || DEFAULT_PG_URL;
}

const sqliteCase: DialectCase = {
  name: 'sqlite',
  async createUrl() {
    const dir = await mkdtemp(join(tmpdir(), 'fw-test-'));
    return { url: `sqlite:${join(dir, 'site.db')}`, drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/**
 * Runs one statement on the admin database with the driver itself: CREATE/DROP DATABASE cannot run
 * in a transaction, and fw's connections only write inside one.
 */
async function admin(sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const postgresCase: DialectCase = {
  name: 'postgres',
  async createUrl() {
    const name = `fw_test_${randomBytes(6).toString('hex')}`;
    await admin(`create database "${name}"`);
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
  },
};

let reachable: boolean | undefined;

/**
 * Whether the test server answers. Asked once per process, synchronously (so suites can be declared
 * in a plain loop), by a child process that connects with the driver; plain JS keeps it fast.
 */
function postgresReachable(): boolean {
  if (reachable !== undefined) return reachable;
  const driver = import.meta.resolve('pg');
  const probe =
    `const { default: pg } = await import(${JSON.stringify(driver)});` +
    `const c = new pg.Client({ connectionString: process.env.FW_PROBE_URL, connectionTimeoutMillis: 5000 });` +
    `await c.connect(); await c.query('select 1'); await c.end();`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
    env: { ...process.env, FW_PROBE_URL: adminUrl() },
    timeout: 15_000,
    stdio: 'ignore',
  });
  reachable = result.status === 0;
  return reachable;
}

let warned = false;

/**
 * The dialects to run storage-dependent suites on. `FW_TEST_DIALECTS` (comma list) narrows it;
 * otherwise PostgreSQL joins when reachable and is skipped, with a notice, when not. When PostgreSQL
 * is asked for by name (as .ci/run does once it has started it) and cannot be reached this throws
 * rather than quietly testing less.
 */
export function testDialects(): DialectCase[] {
  const requested = (process.env.FW_TEST_DIALECTS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const name of requested) {
    if (!(ALL as readonly string[]).includes(name)) {
      throw new Error(`FW_TEST_DIALECTS names unknown dialect "${name}" (known: ${ALL.join(', ')})`);
    }
  }
  const wanted = requested.length ? requested : [...ALL];
  const cases: DialectCase[] = [];
  if (wanted.includes('sqlite')) cases.push(sqliteCase);
  if (wanted.includes('postgres')) {
    const expected = requested.includes('postgres');
    if (postgresReachable()) cases.push(postgresCase);
    else if (expected) {
      throw new Error(
        `PostgreSQL is required for these tests but ${adminUrl().replace(/\/\/([^:@/]*):[^@]*@/, '//$1:***@')} ` +
          `cannot be reached: start it, set FW_TEST_PG_URL, or set FW_TEST_DIALECTS=sqlite`,
      );
    } else if (!warned) {
      warned = true;
      process.stderr.write('PostgreSQL not reachable: PostgreSQL tests skipped, running SQLite only\n');
    }
  }
  return cases;
}

/** Opens a fresh database for a dialect; `drop()` closes it and removes it. */
export async function openTestDatabase(dialect: DialectCase): Promise<{ db: Database; drop(): Promise<void> }> {
  const created = await dialect.createUrl();
  let db: Database;
  try {
    db = await openDatabase(created.url);
  } catch (err) {
    await created.drop();
    throw err;
  }
  return {
    db,
    async drop() {
      await db.close();
      await created.drop();
    },
  };
}
