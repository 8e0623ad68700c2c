import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MaintenanceWatch } from './maintenance.js';

/** Writes the config as `fw maintenance` does: a new file renamed over the old one. */
async function replaceConfig(file: string, config: Record<string, unknown>): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify(config));
  await rename(`${file}.tmp`, file);
}

describe('MaintenanceWatch', () => {
  let dir: string;
  let file: string;
  let watch: MaintenanceWatch;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-maint-'));
    file = join(dir, 'site_config.json');
    await writeFile(file, '{}');
    watch = new MaintenanceWatch(file);
  });
  afterEach(async () => {
    mock.timers.reset();
    watch.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('follows a replaced file through the folder watch, with the clock standing still', async () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.equal(watch.current.on, false);
    await replaceConfig(file, { maintenance_mode: true, allow_reads_during_maintenance: 1 });
    let state = watch.current;
    for (let i = 0; i < 200 && !state.on; i++) {
      await sleep(10);
      state = watch.current;
    }
    assert.deepEqual(state, { on: true, allowReads: true });
  });

  test('keeps the last state while the file is unreadable, and follows once it is whole again', async () => {
    await replaceConfig(file, { maintenance_mode: true });
    const until = async (on: boolean) => {
      for (let i = 0; i < 300 && watch.current.on !== on; i++) await sleep(10);
      return watch.current.on;
    };
    assert.equal(await until(true), true);
    await writeFile(file, '{"maintenance_mode": fal');
    await sleep(50);
    assert.equal(watch.current.on, true, 'a half-written file changes nothing');
    await replaceConfig(file, {});
    assert.equal(await until(false), false);
  });
});
