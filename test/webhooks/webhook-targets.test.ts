import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * Webhooks never reach inside by default (docs/webhooks.md "Safety"): loopback receivers are the
 * only internal targets these tests use; the other internal ranges are tested on the address check
 * itself (src/webhooks/target-guard.test.ts), never with traffic.
 */
for (const dialect of testDialects()) {
  describe(`webhook targets (${dialect.name})`, () => {
    /** A site with the default policy: nothing internal allowed. */
    let closed: TestSite;
    /** A site whose operator allowed one receiver on 127.0.0.1 and one on ::1, by address and port. */
    let open: TestSite;
    let allowed: WebhookReceiver;
    let allowedV6: WebhookReceiver;
    let other: WebhookReceiver;
    before(async () => {
      allowed = await new WebhookReceiver().start();
      allowedV6 = await new WebhookReceiver().start(0, '::1');
      other = await new WebhookReceiver().start();
      closed = await startTestSite(dialect);
      open = await startTestSite(dialect, { config: { webhook_allowed_targets: [`127.0.0.1:${allowed.port}`, `[::1]:${allowedV6.port}`] } });
    });
    after(async () => {
      await closed?.close();
      await open?.close();
      for (const r of [allowed, allowedV6, other]) await r?.stop();
    });

    async function webhook(t: TestSite, url: string, fields: Record<string, unknown> = {}): Promise<string> {
      const res = await t.request({
        method: 'POST',
        url: '/api/resource/Webhook',
        body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: url, ...fields },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.name as string;
    }
    async function disable(t: TestSite, name: string) {
      assert.equal((await t.request({ method: 'PUT', url: `/api/resource/Webhook/${name}`, body: { enabled: 0 } })).statusCode, 200);
    }
    async function insertAndDeliver(t: TestSite, description: string) {
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description } });
      assert.equal(res.statusCode, 200, res.body);
      await new JobWorker(t.site.jobs).runDue();
    }
    async function logOf(t: TestSite, webhookName: string) {
      const filters = encodeURIComponent(JSON.stringify([['webhook', '=', webhookName]]));
      const res = await t.request({ method: 'GET', url: `/api/resource/Webhook Request Log?fields=["*"]&filters=${filters}` });
      assert.equal(res.statusCode, 200, res.body);
      const logs = res.json().data as Record<string, any>[];
      assert.equal(logs.length, 1);
      return logs[0]!;
    }

    test('by default a webhook to a loopback receiver, by address or by name, is refused at delivery and nothing is sent', async () => {
      for (const url of [allowed.url(), `http://localhost:${allowed.port}/hook`, allowedV6.url(), `http://[::ffff:127.0.0.1]:${allowed.port}/hook`]) {
        const before = allowed.received.length + allowedV6.received.length;
        const name = await webhook(closed, url);
        await insertAndDeliver(closed, `to ${url}`);
        const log = await logOf(closed, name);
        assert.equal(log.status, 'Exhausted', url);
        assert.equal(log.attempt, 1, 'refused at once, never retried');
        assert.match(log.error, /internal address .*webhook_allowed_targets/, url);
        assert.equal(log.response_status, null);
        assert.equal(log.response ?? '', '', 'a refused target leaves no response');
        assert.equal(allowed.received.length + allowedV6.received.length, before, `nothing reached ${url}`);
        await disable(closed, name);
      }
    });

    test('receivers the operator allowed get their deliveries, on 127.0.0.1 and on ::1; the log keeps status and headers, no body', async () => {
      for (const receiver of [allowed, allowedV6]) {
        const name = await webhook(open, receiver.url());
        receiver.answers.push({ status: 200, headers: { 'X-Receiver': 'yes' }, body: 'internal answer' });
        const before = receiver.received.length;
        await insertAndDeliver(open, `allowed ${receiver.url()}`);
        assert.equal(receiver.received.length, before + 1, receiver.url());
        const log = await logOf(open, name);
        assert.equal(log.status, 'Delivered');
        assert.equal(log.response_status, 200);
        assert.equal(JSON.parse(log.response_headers)['x-receiver'], 'yes');
        assert.equal(log.response, '', 'an internal target leaves no body on the log');
        await disable(open, name);
      }
    });

    test('an allowed address does not open its neighbours: another port of 127.0.0.1 is refused', async () => {
      const name = await webhook(open, other.url());
      const before = other.received.length;
      await insertAndDeliver(open, 'to the other port');
      const log = await logOf(open, name);
      assert.equal(log.status, 'Exhausted');
      assert.match(log.error, /internal address/);
      assert.equal(other.received.length, before);
      await disable(open, name);
    });

    test('a redirect from an allowed receiver to another internal target is not followed', async () => {
      const name = await webhook(open, allowed.url('/start'));
      allowed.answers.push({ status: 307, headers: { Location: other.url('/stolen') } });
      const before = other.received.length;
      await insertAndDeliver(open, 'redirected');
      const log = await logOf(open, name);
      assert.equal(log.status, 'Exhausted');
      assert.match(log.error, /Redirect to another host .* not followed/);
      assert.equal(other.received.length, before, 'the redirect target got nothing');
      await disable(open, name);
    });

    test('a System Manager cannot allow a target through the API: the site config is untouched and delivery stays refused', async () => {
      const config = await readFile(closed.site.paths.config, 'utf8');
      const attempts = [
        await closed.request({ method: 'PUT', url: '/api/resource/System Settings/System Settings', body: { webhook_allowed_targets: ['127.0.0.1'] } }),
        await closed.request({
          method: 'POST',
          url: '/api/resource/Webhook',
          body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: allowed.url(), webhook_allowed_targets: ['127.0.0.1'] },
        }),
      ];
      for (const res of attempts) assert.ok(res.statusCode < 500, res.body);
      assert.equal(await readFile(closed.site.paths.config, 'utf8'), config);
      const created = attempts[1]!.statusCode === 200 ? String(attempts[1]!.json().data.name) : await webhook(closed, allowed.url());
      const before = allowed.received.length;
      await insertAndDeliver(closed, 'still inside');
      const log = await logOf(closed, created);
      assert.equal(log.status, 'Exhausted');
      assert.equal(allowed.received.length, before);
      await disable(closed, created);
    });
  });
}
