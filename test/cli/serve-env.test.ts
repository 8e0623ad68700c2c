import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/free-port.js';
import { testDialects } from '../helpers/dialects.js';
import { startServe } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin } from '../helpers/wire-admin.js';

// FW_SITE, FW_HOST, FW_PORT and FW_DB_URL are the environment forms of serve's flags (the way
// containers and process managers configure fw); a flag given as well wins.
for (const dialect of testDialects()) {
  describe(`fw serve configured by the environment (${dialect.name})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const undo of cleanups.reverse()) await undo();
    });

    test('FW_SITE, FW_HOST, FW_PORT and FW_DB_URL choose the folder, address and database', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fw-env-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const db = await dialect.createUrl();
      cleanups.push(() => db.drop());
      const port = await freePort();
      const site = join(dir, 'site');
      const serve = await startServe([], {
        workers: 1,
        portFromEnv: true,
        env: { FW_SITE: site, FW_HOST: '127.0.0.1', FW_PORT: String(port), FW_DB_URL: db.url, FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
      });
      cleanups.push(() => serve.kill());
      assert.equal(serve.baseUrl, `http://127.0.0.1:${port}`);
      const config = JSON.parse(await readFile(join(site, 'site_config.json'), 'utf8'));
      assert.equal(config.db_url, db.url);
      await wireAdmin(serve.baseUrl, ADMIN_PASSWORD);
      assert.deepEqual(await serve.stop('SIGTERM', 20_000), { code: 0, signal: null });
    });

    test('a --site flag wins over FW_SITE', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fw-env-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const db = await dialect.createUrl();
      cleanups.push(() => db.drop());
      const serve = await startServe(['--site', join(dir, 'flagged')], {
        workers: 1,
        env: { FW_SITE: join(dir, 'from-env'), FW_DB_URL: db.url, FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
      });
      cleanups.push(() => serve.kill());
      assert.ok((await stat(join(dir, 'flagged', 'site_config.json'))).isFile());
      await assert.rejects(stat(join(dir, 'from-env')));
      assert.deepEqual(await serve.stop('SIGTERM', 20_000), { code: 0, signal: null });
    });
  });
}
