import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { httpCall } from '../helpers/http-call.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD, mergeSiteConfig } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { wireAdmin } from '../helpers/wire-admin.js';

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const dialect of testDialects()) {
  describe(`a webhook survives the server dying between commit and delivery (${dialect.name})`, () => {
    let dir: string;
    let db: { url: string; drop(): Promise<void> };
    let receiver: WebhookReceiver;
    const servers: ServeProcess[] = [];
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-webhook-restart-'));
      db = await dialect.createUrl();
      receiver = await new WebhookReceiver().start();
    });
    after(async () => {
      for (const s of servers) await s.kill();
      await receiver.stop();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('a document committed by a server killed before it sent the webhook is delivered once a server runs again', async () => {
      const env = { FW_ADMIN_PASSWORD: ADMIN_PASSWORD };
      const site = ['--site', join(dir, 'site'), '--db', db.url];
      // This server runs no jobs, so the delivery can only wait in the database.
      const first = await startServe([...site, '--jobs', '0'], { workers: 1, env });
      servers.push(first);
      const admin = await wireAdmin(first.baseUrl, ADMIN_PASSWORD);
      const headers = { authorization: admin.authorization };
      const hook = await httpCall(first.baseUrl, {
        method: 'POST',
        path: '/api/resource/Webhook',
        headers,
        body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url(), webhook_json: '{"text": "{{ doc.description }}"}' },
      });
      assert.equal(hook.status, 200, hook.text);
      const todo = await httpCall(first.baseUrl, {
        method: 'POST',
        path: '/api/resource/ToDo',
        headers,
        body: { description: 'committed, then the server died' },
      });
      assert.equal(todo.status, 200, todo.text);
      await first.stop('SIGKILL', 10_000);
      assert.equal(receiver.received.length, 0, 'nothing was sent before the kill');
      // The receiver is on loopback: the operator allows it (read when the next server starts).
      await mergeSiteConfig(join(dir, 'site'), { webhook_allowed_targets: [`127.0.0.1:${receiver.port}`] });

      const second = await startServe(site, { workers: 1, env });
      servers.push(second);
      await eventually(() => receiver.received.length > 0, 30_000, 'the delivery after restart');
      assert.deepEqual(JSON.parse(receiver.received[0].body), { text: 'committed, then the server died' });
      await eventually(
        async () => {
          const logs = await httpCall(second.baseUrl, { method: 'GET', path: '/api/resource/Webhook Request Log?fields=["status","attempt"]', headers });
          return JSON.stringify(logs.json().data) === JSON.stringify([{ status: 'Delivered', attempt: 1 }]);
        },
        10_000,
        'the log to say Delivered',
      );
      assert.equal((await second.stop('SIGTERM', 20_000)).code, 0);
      assert.equal(receiver.received.length, 1, 'delivered once');
    });
  });
}
