import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from '../../bench/report-types.js';
import { SCENARIOS } from '../../bench/scenarios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `node --import tsx bench/run.ts <args>`; resolves with the exit code and the output. */
function runBench(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

// Keeps the harness from rotting: it must run every scenario against fw and the baseline without a
// failed request. Figures are not asserted; in quick mode they mean nothing. The full run includes
// the subsystems part (two more fw servers and s3rver, about a minute from src/ on a loaded machine).
// About five minutes beside the rest of the suite, most of it waiting (slices, server starts, idle checks).
test('the quick benchmark runs every scenario on fw and the baseline without a failed request and writes its JSON', { timeout: 600_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fw-bench-test-'));
  try {
    const json = join(dir, 'bench.json');
    // `--fw src` runs the sources through tsx, so the test never waits for (or rewrites) dist/.
    const { code, output } = await runBench(['--quick', '--sizes', '200', '--dialect', 'sqlite', '--no-docs', '--fw', 'src', '--json', json]);
    assert.equal(code, 0, output.slice(-4000));

    const report = JSON.parse(await readFile(json, 'utf8')) as BenchReport;
    assert.equal(report.errors, 0);
    assert.equal(report.runs.length, 1);
    const [run] = report.runs;
    assert.equal(run.dialect, 'sqlite');
    assert.equal(run.skipped, undefined);
    assert.equal(run.sizes.length, 1);
    const [size] = run.sizes;
    assert.ok(size.rows >= 200, `rows: ${size.rows}`);
    assert.deepEqual(size.listRows, { fw: 20, baseline: 20 }, 'both servers list the same full page');
    assert.deepEqual(
      size.scenarios.map((s) => s.id),
      SCENARIOS.map((s) => s.id),
    );
    for (const s of size.scenarios) {
      assert.equal(s.skipped, undefined, `${s.id} skipped: ${s.skipped}`);
      for (const side of [s.fw, s.baseline]) {
        assert.ok(side, `${s.id} has figures for both servers`);
        assert.equal(side.errors, 0, `${s.id}: ${side.sampleError ?? JSON.stringify(side.statusCodes)}`);
      }
    }
    assert.ok(size.stream, 'the unlimited list ran');
    assert.equal(size.stream.rows, size.rows);
    assert.equal(size.stream.fw.errors + size.stream.baseline.errors, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
