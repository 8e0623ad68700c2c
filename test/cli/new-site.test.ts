import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { checkUserPassword } from '../../src/auth/passwords.js';
import { openSite } from '../../src/site/open-site.js';

/** Runs the CLI in process and captures what it prints. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  const write = process.stderr.write.bind(process.stderr);
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  process.stderr.write = ((chunk: string) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
    process.stderr.write = write;
  }
}

async function passwordWorks(dir: string, password: string): Promise<boolean> {
  const site = await openSite(dir);
  try {
    return await site.db.read((q) => checkUserPassword(q, site.db.dialect, 'Administrator', password));
  } finally {
    await site.close();
  }
}

describe('fw new-site', () => {
  const dirs: string[] = [];
  const tempSite = async () => {
    const parent = await mkdtemp(join(tmpdir(), 'fw-cli-'));
    dirs.push(parent);
    return join(parent, 'site');
  };
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('creates the config, database and file folders with the given Administrator password', async () => {
    const dir = await tempSite();
    const { code, out } = await run(['new-site', dir, '--admin-password', 'pw-given-1']);
    assert.equal(code, 0);
    assert.doesNotMatch(out, /shown once/);
    const config = JSON.parse(await readFile(join(dir, 'site_config.json'), 'utf8'));
    assert.equal(config.db_url, 'sqlite:site.db');
    assert.ok(config.encryption_key.length >= 32);
    assert.ok((await stat(join(dir, 'site.db'))).isFile());
    assert.ok((await stat(join(dir, 'public', 'files'))).isDirectory());
    assert.ok((await stat(join(dir, 'private', 'files'))).isDirectory());
    assert.equal(await passwordWorks(dir, 'pw-given-1'), true);
  });

  test('generates a password and prints it once when none is given', async () => {
    const dir = await tempSite();
    const saved = process.env.FW_ADMIN_PASSWORD;
    delete process.env.FW_ADMIN_PASSWORD;
    try {
      const { code, out } = await run(['new-site', dir]);
      assert.equal(code, 0);
      const password = /shown once\): (\S+)/.exec(out)?.[1];
      assert.ok(password, out);
      assert.equal(await passwordWorks(dir, password), true);
    } finally {
      if (saved !== undefined) process.env.FW_ADMIN_PASSWORD = saved;
    }
  });

  test('refuses a folder that already holds a site and leaves it intact', async () => {
    const dir = await tempSite();
    assert.equal((await run(['new-site', dir, '--admin-password', 'first-pw'])).code, 0);
    const { code, err } = await run(['new-site', dir, '--admin-password', 'second-pw']);
    assert.equal(code, 1);
    assert.match(err, /already holds a site/);
    assert.equal(await passwordWorks(dir, 'first-pw'), true);
  });

  test('a creation that fails (unreachable PostgreSQL) leaves no half-made site, so a retry works', async () => {
    const dir = await tempSite();
    const failed = await run(['new-site', dir, '--db', 'postgres://fw@127.0.0.1:1/nowhere', '--admin-password', 'pw-1']);
    assert.equal(failed.code, 1);
    assert.match(failed.err, /Could not reach PostgreSQL/);
    await assert.rejects(stat(dir), 'the folder it made is gone');

    // A folder that existed before keeps what it held; only what the creation made goes.
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    assert.equal((await run(['new-site', dir, '--db', 'postgres://fw@127.0.0.1:1/nowhere', '--admin-password', 'pw-1'])).code, 1);
    assert.deepEqual(await readdir(dir), ['notes.txt']);

    assert.equal((await run(['new-site', dir, '--admin-password', 'pw-2'])).code, 0);
    assert.equal(await passwordWorks(dir, 'pw-2'), true);
  });

  test('answers a usage error with exit code 2 for a missing folder or an unknown flag', async () => {
    assert.equal((await run(['new-site'])).code, 2);
    assert.equal((await run(['new-site', 'x', '--nope'])).code, 2);
    assert.equal((await run(['frobnicate'])).code, 2);
  });
});
