import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/free-port.js';
import { processTree } from '../../bench/process-memory.js';
import { assertBuilt, outputOf, REPO, stopChild } from '../helpers/fw-bin.js';
import { wireAdmin } from '../helpers/wire-admin.js';

const BIN = join(REPO, 'bin', 'fw.js');
const PASSWORD = 'heap-test-admin';
const MIB = 1024 * 1024;

/** The ways a person starts fw's server, all without node flags of their own. */
const STARTS: { how: string; command: (args: string[]) => [string, string[]] }[] = [
  { how: 'node bin/fw.js serve', command: (args) => [process.execPath, [BIN, 'serve', ...args]] },
  // npm's `fw` link and ./bin/fw.js run the file itself, through its shebang.
  { how: 'bin/fw.js serve (shebang)', command: (args) => [BIN, ['serve', ...args]] },
  { how: 'node bin/fw.js serve --workers 1', command: (args) => [process.execPath, [BIN, 'serve', '--workers', '1', ...args]] },
];

/** V8's young generation (new space) of the serving process, from the site's own /metrics. */
async function newSpaceBytes(origin: string, authorization: string): Promise<number> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization } });
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 500));
  const match = /^nodejs_heap_space_size_total_bytes\{space="new"[^}]*\} (\d+)/m.exec(text);
  assert.ok(match, 'the new space series is in the metrics');
  return Number(match[1]);
}

/** Work that makes V8 grow an unlimited young generation: bursts of 100-document inserts. */
async function busyWrites(origin: string, authorization: string): Promise<void> {
  const body = JSON.stringify({ docs: Array.from({ length: 100 }, (_, i) => ({ doctype: 'ToDo', description: `heap check ${i}`, priority: 'Low' })) });
  const headers = { authorization, 'content-type': 'application/json' };
  for (let round = 0; round < 6; round++) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${origin}/api/method/frappe.client.insert_many`, { method: 'POST', headers, body }).then((r) => r.status)),
    );
    assert.deepEqual([...new Set(answers)], [200]);
  }
}

// The heap settings are the process's, whatever the engine, so one SQLite site serves every case.
describe('fw serve sizes its heap itself, in one process, however it is started', () => {
  let dir: string;
  const children: ChildProcess[] = [];

  before(async () => {
    assertBuilt();
    dir = await mkdtemp(join(tmpdir(), 'fw-serve-heap-'));
  });
  after(async () => {
    for (const child of children) await stopChild(child, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  async function start(command: [string, string[]], env: Record<string, string> = {}): Promise<{ child: ChildProcess; origin: string }> {
    const port = await freePort();
    const [file, args] = command;
    const child = spawn(file, [...args, '--port', String(port)], {
      cwd: REPO,
      env: { ...process.env, FW_ADMIN_PASSWORD: PASSWORD, FW_LOG_FORMAT: 'json', FW_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    await outputOf(child).waitFor(/"msg":"Server listening at/, 60_000);
    return { child, origin: `http://127.0.0.1:${port}` };
  }

  for (const { how, command } of STARTS) {
    test(`${how}: one process, whose young generation grows no further than its cap under load`, async () => {
      const { child, origin } = await start(command(['--site', join(dir, 'site')]));
      // No launcher: the pid that was started is the server, with no node of its own below it.
      assert.deepEqual(processTree(child.pid!), [child.pid]);
      const admin = await wireAdmin(origin, PASSWORD);
      await busyWrites(origin, admin.authorization);
      // Uncapped, V8 grows it to 32 MiB under these bursts (the user's-flag test below sees it grow).
      const bytes = await newSpaceBytes(origin, admin.authorization);
      assert.ok(bytes <= 8 * MIB, `new space is ${bytes} bytes`);
      await stopChild(child, 'SIGTERM');
    });
  }

  test('FW_YOUNG_GENERATION_MB sets the cap', async () => {
    const { child, origin } = await start([process.execPath, [BIN, 'serve', '--site', join(dir, 'site')]], { FW_YOUNG_GENERATION_MB: '2' });
    const admin = await wireAdmin(origin, PASSWORD);
    await busyWrites(origin, admin.authorization);
    const bytes = await newSpaceBytes(origin, admin.authorization);
    assert.ok(bytes <= 2 * MIB, `new space is ${bytes} bytes`);
    await stopChild(child, 'SIGTERM');
  });

  test('a node flag the user gives wins over the built-in setting', async () => {
    const { child, origin } = await start([process.execPath, ['--max-semi-space-size=16', BIN, 'serve', '--site', join(dir, 'site')]]);
    const admin = await wireAdmin(origin, PASSWORD);
    await busyWrites(origin, admin.authorization);
    // With the user's limit (two 16 MiB semi-spaces) it grows past fw's own cap.
    const bytes = await newSpaceBytes(origin, admin.authorization);
    assert.ok(bytes > 8 * MIB, `new space is ${bytes} bytes`);
    await stopChild(child, 'SIGTERM');
  });

  test('SIGKILL of the started process leaves nothing serving', async () => {
    const { child, origin } = await start([process.execPath, [BIN, 'serve', '--site', join(dir, 'site')]]);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await assert.rejects(fetch(`${origin}/api/method/ping`), 'the port is closed: no orphan server kept it');
  });
});
