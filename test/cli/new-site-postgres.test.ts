import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import pg from 'pg';
import { testDialects } from '../helpers/dialects.js';
import { runBin } from '../helpers/fw-bin.js';
import { Scratch, withSite } from './run-cli.js';

// `fw new-site --db postgres://…/<name>` creates the database when the role may, and otherwise
// prints the createdb to run (docs/deployment.md).

const ADMIN_URL = process.env.FW_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

function urlFor(database: string, user?: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  if (user) url.username = user;
  return url.toString();
}

const postgres = testDialects().find((d) => d.name === 'postgres');
if (postgres) {
  describe('node bin/fw.js new-site on a PostgreSQL database that does not exist yet', () => {
    const scratch = new Scratch(postgres);
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const undo of cleanups.reverse()) await undo();
      await scratch.dispose();
    });

    test('a role that may create databases gets one, and the site works', async () => {
      const name = `fw_new_${randomBytes(5).toString('hex')}`;
      cleanups.push(() => admin(`drop database if exists "${name}" with (force)`));
      const dir = await scratch.folder('site');
      const run = await runBin(['new-site', dir, '--db', urlFor(name), '--admin-password', 'Admin-Secret-42']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`Created the PostgreSQL database .*/${name}`));
      assert.ok(await databaseExists(name));
      const users = await withSite(dir, (site) =>
        site.db.read((q) => q.all<{ name: string }>({ sql: 'select name from "tabUser" order by name', parameters: [] })),
      );
      assert.deepEqual(
        users.map((u) => u.name),
        ['Administrator', 'Guest'],
      );
    });

    test('a role that may not is told the exact createdb to run, and nothing is created', async () => {
      const role = `fw_nocreate_${randomBytes(4).toString('hex')}`;
      await admin(`create role "${role}" login nocreatedb`);
      cleanups.push(() => admin(`drop role if exists "${role}"`));
      const name = `fw_new_${randomBytes(5).toString('hex')}`;
      cleanups.push(() => admin(`drop database if exists "${name}" with (force)`));
      const dir = await scratch.folder('site');
      const run = await runBin(['new-site', dir, '--db', urlFor(name, role)]);
      assert.equal(run.code, 1, run.stdout);
      const host = new URL(ADMIN_URL);
      assert.ok(run.stderr.includes(`createdb --host=${host.hostname} --port=${host.port || '5432'} --owner=${role} ${name}`), run.stderr);
      assert.match(run.stderr, /permission denied/);
      assert.equal(await databaseExists(name), false);
      await assert.rejects(stat(dir));
    });
  });
}
