import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createSite } from '../../src/site/open-site.js';
import { sitePaths } from '../../src/site/site-paths.js';
import { testDialects } from '../helpers/dialects.js';
import { outputOf, REPO, runBin, spawnBinInTerminal } from '../helpers/fw-bin.js';
import { Scratch, withSite } from './run-cli.js';

// fw backup shows its progress (database, then files) to a person at a terminal and stays quiet
// for scripts; it writes nothing into the site, so a read-only site can be backed up (docs/deployment.md).

for (const dialect of testDialects()) {
  describe(`node bin/fw.js backup progress (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    after(() => scratch.dispose());

    test('in a terminal: database and files progress up to 100%; otherwise only the archive path', async () => {
      const dir = await scratch.site('site');
      await writeFile(join(sitePaths(dir).publicFiles, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
      const out = await scratch.folder('backups');
      const child = spawnBinInTerminal(['backup', '--site', dir, '--out', join(out, 'a.tar.gz')]);
      const seen = outputOf(child);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, seen.text());
      const text = seen.text();
      assert.match(text, new RegExp(`database \\(${dialect.name}\\)`));
      assert.match(text, /database 0%[\s\S]*database 100%/);
      assert.match(text, /site_config\.json and files \(3\.\d MiB\)/);
      assert.match(text, /files 0%[\s\S]*files 50%[\s\S]*files 100%/);
      assert.ok(text.indexOf('database 100%') < text.indexOf('files 0%'));

      const quiet = await runBin(['backup', '--site', dir, '--out', join(out, 'b.tar.gz')]);
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(quiet.stderr, '');
      assert.match(quiet.stdout, /written to .*b\.tar\.gz/);
    });
  });
}

/** Runs `node bin/fw.js <args>` as a user who may read the site but not write it (root: user nobody). */
function runWithoutWriteAccess(args: string[]): Promise<{ code: number | null; output: string }> {
  const node = [process.execPath, join(REPO, 'bin', 'fw.js'), ...args];
  const [command, ...rest] = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node] : node;
  const child = spawn(command, rest, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = outputOf(child);
  return new Promise((resolve) => child.once('exit', (code) => setImmediate(() => resolve({ code, output: out.text() }))));
}

/**
 * Where root runs the backup as user nobody, that user must reach the checkout's bin/fw.js: not so
 * under a folder only its owner may enter (a clone inside `mktemp -d`). The folder that stops it, if any.
 */
async function folderClosedToOthers(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (let dir = REPO; ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every file of a folder with its size and modification time. */
async function listing(dir: string): Promise<string[]> {
  const entries: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const info = await stat(join(dir, entry));
    entries.push(`${entry} ${info.size} ${info.mtimeMs}`);
  }
  return entries.sort();
}

describe('node bin/fw.js backup of a read-only SQLite site', () => {
  const scratch = new Scratch(testDialects().find((d) => d.name === 'sqlite') ?? testDialects()[0]);
  after(() => scratch.dispose());

  test('succeeds, writes nothing into the site, and restores', async (t) => {
    if (scratch === undefined || testDialects().every((d) => d.name !== 'sqlite')) return t.skip('SQLite is not in FW_TEST_DIALECTS');
    const closed = await folderClosedToOthers();
    if (closed !== undefined) return t.skip(`user nobody cannot enter ${closed}, above the checkout`);
    // The database inside the site folder (the default sqlite:site.db), where the read-only bits apply.
    const dir = await scratch.folder('site');
    await createSite(dir, { adminPassword: 'admin' });
    await withSite(dir, async (site) => {
      await site.db.transaction((q) => q.run({ sql: "insert into \"__fw_state\" (key, value) values ('backup_probe', 'kept')", parameters: [] }));
    });
    // Readable by all, writable by nobody but root (and root runs the backup as user nobody).
    await chmod(sitePaths(dir).config, 0o644);
    // The temp folder above the site must let user nobody through.
    await chmod(join(dir, '..'), 0o755);
    for (const folder of [dir, sitePaths(dir).publicFiles, sitePaths(dir).privateFiles]) await chmod(folder, 0o555);
    if (process.getuid?.() !== 0) await chmod(join(dir, 'site.db'), 0o444);
    const before = await listing(dir);
    const out = await scratch.folder('out');
    await mkdir(out);
    await chmod(join(out, '..'), 0o755);
    await chmod(out, 0o777);
    const archive = join(out, 'ro.tar.gz');

    const run = await runWithoutWriteAccess(['backup', '--site', dir, '--out', archive]);
    assert.equal(run.code, 0, run.output);
    assert.deepEqual(await listing(dir), before, 'nothing in the site changed');
    for (const folder of [dir, sitePaths(dir).publicFiles, sitePaths(dir).privateFiles]) await chmod(folder, 0o755);

    const copy = await scratch.folder('copy');
    const restored = await runBin(['restore', archive, '--site', copy]);
    assert.equal(restored.code, 0, restored.stderr);
    const probe = await withSite(copy, (site) =>
      site.db.read((q) => q.all<{ value: string }>({ sql: 'select value from "__fw_state" where key = \'backup_probe\'', parameters: [] })),
    );
    assert.deepEqual(probe, [{ value: 'kept' }]);
  });
});
