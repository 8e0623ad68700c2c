import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/free-port.js';
import { outputOf, REPO, runBin, spawnBin, spawnBinInTerminal, stopChild } from '../helpers/fw-bin.js';

// The first hour with fw (README): `node bin/fw.js` answers --version and every command's --help,
// and a server started in a terminal speaks to a person while one under a process manager logs JSON.

const COMMANDS = ['new-site', 'serve', 'worker', 'migrate', 'backup', 'restore', 'user'];

describe('node bin/fw.js: version and help', () => {
  test('--version prints the version of package.json', async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const run = await runBin(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout.trim(), `fw ${pkg.version}`);
  });

  test('every command answers --help with its own usage and exit code 0', async () => {
    for (const command of COMMANDS) {
      const run = await runBin([command, '--help']);
      assert.equal(run.code, 0, `${command} --help: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^Usage: fw ${command}\\b`), command);
      assert.equal(run.stderr, '');
    }
    const sub = await runBin(['user', 'add', '--help']);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /^Usage: fw user add <email>/);
    const topic = await runBin(['help', 'backup']);
    assert.match(topic.stdout, /^Usage: fw backup/);
  });

  test('an unknown option is still refused, with that command usage', async () => {
    const run = await runBin(['migrate', '--sitee', 'x']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /fw migrate: .*--sitee/);
    assert.match(run.stderr, /Usage: fw migrate/);
    assert.doesNotMatch(run.stderr, /Usage: fw serve/);
  });

  test('a malformed FW_LOG_FORMAT is refused before anything starts', async () => {
    const run = await runBin(['serve', '--port', '0'], { env: { FW_LOG_FORMAT: 'yaml', FW_SITE: '/nonexistent/never-created' } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /FW_LOG_FORMAT must be "pretty" or "json", got "yaml"/);
  });
});

describe('node bin/fw.js serve: log formats', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const siteDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-first-hour-'));
    dirs.push(dir);
    return join(dir, 'site');
  };

  test('in a terminal: a banner, then one readable line per request with secrets redacted', async () => {
    const dir = await siteDir();
    const port = await freePort();
    const child = spawnBinInTerminal(['serve', '--site', dir, '--port', String(port)], { FW_ADMIN_PASSWORD: 'admin', FW_LOG_FORMAT: undefined });
    const out = outputOf(child);
    try {
      await out.waitFor(/Ctrl-C stops the server/, 60_000);
      const text = out.text();
      assert.match(text, new RegExp(`fw is serving http://127\\.0\\.0\\.1:${port}`));
      assert.match(text, new RegExp(`site: +${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.match(text, /database: +SQLite .*site\.db/);
      assert.match(text, /password: +FW_ADMIN_PASSWORD/);
      // `admin` is accepted for a new site (the README's quick start), with a warning.
      assert.match(text, /warning: the Administrator password is shorter than 8 characters/);
      assert.doesNotMatch(text, /^\{"level"/m);
      assert.doesNotMatch(text, /Server listening at/, 'the banner alone names the address');

      const pong = await fetch(`http://127.0.0.1:${port}/api/method/ping?pwd=hunter2`);
      assert.equal(pong.status, 200);
      const line = await out.waitFor(/^.*GET \/api\/method\/ping\?pwd=\[REDACTED\] 200 .*ms\r?$/m, 10_000);
      assert.ok(line[0].length < 120, line[0]);
      assert.doesNotMatch(out.text(), /hunter2/);
      assert.equal(out.text().match(/\/api\/method\/ping/g)?.length, 1, 'one line per request');
    } finally {
      child.stdin!.write('\x03');
      assert.equal(await stopChild(child, 'SIGTERM', 20_000), 0);
    }
  });

  test('in a terminal with FW_LOG_FORMAT=json: JSON lines and no banner', async () => {
    const dir = await siteDir();
    const port = await freePort();
    const child = spawnBinInTerminal(['serve', '--site', dir, '--port', String(port)], { FW_ADMIN_PASSWORD: 'admin', FW_LOG_FORMAT: 'json' });
    const out = outputOf(child);
    try {
      await out.waitFor(/"msg":"Server listening at/, 60_000);
      assert.doesNotMatch(out.text(), /fw is serving/);
    } finally {
      child.stdin!.write('\x03');
      await stopChild(child, 'SIGTERM', 20_000);
    }
  });

  test('not a terminal but FW_LOG_FORMAT=pretty: readable lines; without it JSON (the process-manager default)', async () => {
    const dir = await siteDir();
    const port = await freePort();
    const pretty = spawnBin(['serve', '--site', dir, '--port', String(port)], { FW_ADMIN_PASSWORD: 'admin', FW_LOG_FORMAT: 'pretty' });
    const out = outputOf(pretty);
    try {
      await out.waitFor(/fw is serving/, 60_000);
      await fetch(`http://127.0.0.1:${port}/api/method/ping`);
      await out.waitFor(/GET \/api\/method\/ping 200/, 10_000);
    } finally {
      assert.equal(await stopChild(pretty), 0);
    }
    const json = spawnBin(['serve', '--site', dir, '--port', String(port)], { FW_LOG_FORMAT: undefined });
    const jsonOut = outputOf(json);
    try {
      await jsonOut.waitFor(/"msg":"Server listening at/, 60_000);
      assert.match(jsonOut.text(), /^\{"level":30,/m);
      assert.doesNotMatch(jsonOut.text(), /fw is serving/);
    } finally {
      assert.equal(await stopChild(json), 0);
    }
  });
});
