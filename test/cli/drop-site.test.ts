import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testDialects } from '../helpers/dialects.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { runCli } from './run-cli.js';

// `fw drop-site` (docs/deployment.md "Several sites in one process"): it drops a PostgreSQL
// database only when fw created it, and never without --yes or a confirmation.

const ADMIN_URL = process.env.FW_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(sql: string, params: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

const databaseExists = async (name: string) => (await adminQuery('select 1 from pg_database where datname = $1', [name])) === 1;

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

const postgres = testDialects().find((d) => d.name === 'postgres');

describe('fw drop-site on PostgreSQL', { skip: postgres ? false : 'PostgreSQL not in FW_TEST_DIALECTS' }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const undo of cleanups.reverse()) await undo();
  });

  test('drops the database fw created, and leaves one it did not create', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-drop-site-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const made = `fw_drop_${randomBytes(5).toString('hex')}`;
    const given = `fw_keep_${randomBytes(5).toString('hex')}`;
    cleanups.push(async () => {
      await adminQuery(`drop database if exists "${made}" with (force)`);
      await adminQuery(`drop database if exists "${given}" with (force)`);
    });
    await adminQuery(`create database "${given}"`);

    const created = await runCli(['new-site', join(dir, 'made.localhost'), '--db', urlFor(made), '--admin-password', ADMIN_PASSWORD]);
    assert.equal(created.code, 0, created.err);
    const kept = await runCli(['new-site', join(dir, 'kept.localhost'), '--db', urlFor(given), '--admin-password', ADMIN_PASSWORD]);
    assert.equal(kept.code, 0, kept.err);
    assert.ok(await databaseExists(made));

    const refused = await runCli(['drop-site', join(dir, 'made.localhost')]);
    assert.notEqual(refused.code, 0);
    assert.ok(await databaseExists(made), 'nothing dropped without --yes');
    await stat(join(dir, 'made.localhost', 'site_config.json'));

    const dropped = await runCli(['drop-site', join(dir, 'made.localhost'), '--yes']);
    assert.equal(dropped.code, 0, dropped.err);
    assert.equal(await databaseExists(made), false);
    await assert.rejects(stat(join(dir, 'made.localhost')));

    const droppedKept = await runCli(['drop-site', join(dir, 'kept.localhost'), '--yes']);
    assert.equal(droppedKept.code, 0, droppedKept.err);
    assert.equal(await databaseExists(given), true, 'a database fw did not create stays');
    await assert.rejects(stat(join(dir, 'kept.localhost')));
  });

  test('refuses a folder that holds no site', async () => {
    const run = await runCli(['drop-site', join(tmpdir(), `fw-no-site-${randomBytes(4).toString('hex')}`), '--yes']);
    assert.notEqual(run.code, 0);
  });
});
