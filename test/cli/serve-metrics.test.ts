import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { httpCall } from '../helpers/http-call.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin, type WireAdmin } from '../helpers/wire-admin.js';

/** The workers whose series `text` holds for `name`, by their `worker` label. */
function workersIn(text: string, name: string): Set<string> {
  const workers = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const worker = /worker="(\d+)"/.exec(line)?.[1];
    if (worker) workers.add(worker);
  }
  return workers;
}

// `fw serve --workers 2` as a real process tree. The storage engine plays no part in how metrics
// travel between processes, so one engine is enough here; test/api/metrics.test.ts covers both.
for (const dialect of testDialects().slice(0, 1)) {
  describe(`/metrics under fw serve --workers 2 (${dialect.name})`, () => {
    let dir: string;
    let drop: (() => Promise<void>) | undefined;
    let serve: ServeProcess | undefined;
    let admin: WireAdmin;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-metrics-'));
      const db = await dialect.createUrl();
      drop = db.drop;
      serve = await startServe(['--site', join(dir, 'site'), '--db', db.url], { workers: 2, env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD } });
      admin = await wireAdmin(serve.baseUrl, ADMIN_PASSWORD);
    });
    after(async () => {
      await serve?.kill();
      await drop?.();
      await rm(dir, { recursive: true, force: true });
    });

    test('whichever worker a scrape reaches, it answers the series of both, each under its worker label', async () => {
      // Fresh connections are handed to the workers in turn, so both serve some of these.
      for (let i = 0; i < 8; i++) {
        const res = await httpCall(serve!.baseUrl, { method: 'GET', path: '/api/method/ping' });
        assert.equal(res.status, 200);
      }
      for (let scrape = 0; scrape < 4; scrape++) {
        const res = await httpCall(serve!.baseUrl, { method: 'GET', path: '/metrics', headers: { authorization: admin.authorization } });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([...workersIn(res.text, 'fw_http_requests_total')].sort(), ['1', '2'], res.text.slice(0, 2000));
        assert.deepEqual([...workersIn(res.text, 'process_resident_memory_bytes')].sort(), ['1', '2']);
        // The queue is the site's: every worker reports the same counts.
        assert.match(res.text, /^fw_jobs\{status="queued",worker="1"\} 0$/m);
        assert.match(res.text, /^fw_jobs\{status="queued",worker="2"\} 0$/m);
      }
    });
  });
}
