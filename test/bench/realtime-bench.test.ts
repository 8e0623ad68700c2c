import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseRealtimeOptions } from '../../bench/realtime-bench.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('realtime bench options', () => {
  test('the default is a ladder of steps, 5 s each, over 1,000 sockets in 4 client processes', () => {
    const options = parseRealtimeOptions(['--realtime']);
    assert.deepEqual(options.steps, [5, 10, 20, 40, 80, 160]);
    assert.equal(options.seconds, 5);
    assert.equal(options.sockets, 1000);
    assert.equal(options.clientProcesses, 4);
    assert.equal(options.allSteps, false);
    assert.equal(options.client, 'lean');
  });

  test('--rate alone is one step of 20 s, as the scenario always ran', () => {
    const options = parseRealtimeOptions(['--realtime', '--rate', '50', '--sockets', '200']);
    assert.deepEqual(options.steps, [50]);
    assert.equal(options.seconds, 20);
    assert.equal(options.sockets, 200);
  });

  test('--steps, --seconds, --client-processes, --client and --all-steps are read; bad values are refused', () => {
    const options = parseRealtimeOptions([
      '--realtime',
      '--steps',
      '10, 20',
      '--seconds',
      '3',
      '--client-processes',
      '2',
      '--client',
      'socketio',
      '--all-steps',
    ]);
    assert.deepEqual(options.steps, [10, 20]);
    assert.equal(options.seconds, 3);
    assert.equal(options.clientProcesses, 2);
    assert.equal(options.allSteps, true);
    assert.equal(options.client, 'socketio');
    assert.throws(() => parseRealtimeOptions(['--steps', '10,x']), /--steps/);
    assert.throws(() => parseRealtimeOptions(['--client', 'browser']), /--client/);
    assert.throws(() => parseRealtimeOptions(['--rate', '10', '--steps', '20']), /do not go together/);
  });
});

// Keeps the scenario from rotting: a tiny run, with each kind of client, must connect its clients
// in their processes, deliver every event and print its table. Figures are not asserted.
for (const [client, named] of [
  ['lean', "the bench's light client"],
  ['socketio', 'socket.io-client'],
] as const) {
  test(`a tiny realtime run with ${named} delivers every event and prints its steps`, { timeout: 240_000 }, async () => {
    const args = [
      '--import',
      'tsx',
      'bench/run.ts',
      '--realtime',
      '--sockets',
      '20',
      '--client-processes',
      '2',
      '--client',
      client,
      '--steps',
      '5',
      '--seconds',
      '1',
      '--documents',
      '5',
    ];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.once('error', reject);
      child.once('exit', (exit) => resolve({ code: exit, output: text }));
    });
    assert.equal(code, 0, output.slice(-4000));
    assert.ok(output.includes(`20 idle sockets (${named}) in 2 processes`), output.slice(-4000));
    assert.match(output, /\| 5 \(\d+(\.\d)?\) x 20 \| [\d,]+ \|.*\| 0 of 100 \|/);
  });
}
