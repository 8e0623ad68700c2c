import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { RENDER_BUDGET_MS } from '../../src/webhooks/json-template.js';
import { WEBHOOK_METHODS } from '../../src/webhooks/webhook-methods.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * A template that would run for seconds with little memory: a million loop steps, no output.
 * Before renders had a budget of a few ms (docs/webhooks.md "Bodies"), each such render held the
 * event loop for about a second, inside the write that matched.
 */
const EXPENSIVE = '{% for i in (1..1000) %}{% for j in (1..1000) %}{% if i == j %}{% endif %}{% endfor %}{% endfor %}{"n": "{{ doc.name }}"}';

/**
 * The event loop's longest stand-still while the five templates are tried must stay under this
 * many ms, or under a few times what the same process shows while it only answers pings (the
 * machine may be busy, which stretches every wall-clock measure). Generous either way: a stopped
 * render holds the loop for at most two budgets of RENDER_BUDGET_MS; an unbounded one held it for
 * a second or more per webhook.
 */
const LOOP_STALL_BOUND_MS = 1000;
const BUSY_MACHINE_FACTOR = 4;

for (const dialect of testDialects()) {
  describe(`webhook templates cannot stall the server (${dialect.name})`, () => {
    let t: TestSite;
    let receiver: WebhookReceiver;
    const hooks: string[] = [];
    before(async () => {
      receiver = await new WebhookReceiver().start();
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: [`127.0.0.1:${receiver.port}`] } });
      for (let i = 0; i < 5; i++) {
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/Webhook',
          body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url(), webhook_json: EXPENSIVE },
        });
        assert.equal(res.statusCode, 200, res.body);
        hooks.push(String(res.json().data.name));
      }
    });
    after(async () => {
      await t?.close();
      await receiver?.stop();
    });

    test('five matching webhooks with expensive templates: the write answers at once, pings are answered throughout, each delivery stops at its budget with a clear error', {
      timeout: 120_000,
    }, async () => {
      const idle = monitorEventLoopDelay({ resolution: 10 });
      const loop = monitorEventLoopDelay({ resolution: 10 });
      let pinging = true;
      let pings = 0;
      const pinger = (async () => {
        while (pinging) {
          const res = await t.request({ method: 'GET', url: '/api/method/ping' });
          assert.equal(res.statusCode, 200);
          pings += 1;
          // In-process requests answer in microtasks: yield, so timers and I/O (the jobs' database) run too.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // What this machine does to the loop right now, with nothing but pings to answer.
      idle.enable();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      idle.disable();
      loop.enable();
      try {
        const write = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'matches five webhooks' } });
        assert.equal(write.statusCode, 200, write.body);
        const todo = String(write.json().data.name);
        await t.site.jobs.flushSources();
        const pending = await logsOf(todo);
        assert.equal(pending.length, 5);
        assert.ok(
          pending.every((l) => l.status === 'Pending' && l.data === ''),
          'the write rendered nothing',
        );

        const pingsBefore = pings;
        await new JobWorker(t.site.jobs).runDue();
        assert.ok(pings > pingsBefore, 'pings were answered while the five deliveries rendered');

        const done = await logsOf(todo);
        for (const log of done) {
          assert.equal(log.status, 'Exhausted');
          assert.equal(log.error, `The JSON template exceeded its render budget of ${RENDER_BUDGET_MS} ms and was stopped`);
          assert.equal(log.data, '', 'nothing was rendered to send');
        }
        assert.equal(receiver.received.length, 0, 'nothing was sent');
        // Nothing can be sent again from a delivery stopped before its request was rendered.
        for (const method of ['retry_now', 'replay']) {
          assertV1Error(
            await t.request({ method: 'POST', url: `/api/method/${WEBHOOK_METHODS}.${method}`, body: { name: done[0]!.name } }),
            417,
            'ValidationError',
          );
        }
      } finally {
        loop.disable();
        pinging = false;
        await pinger;
      }
      const stalledMs = loop.max / 1e6;
      const bound = Math.max(LOOP_STALL_BOUND_MS, BUSY_MACHINE_FACTOR * (idle.max / 1e6));
      assert.ok(stalledMs < bound, `the event loop stood still for ${stalledMs.toFixed(0)} ms at most (bound ${bound.toFixed(0)} ms)`);
    });

    async function logsOf(todo: string) {
      const filters = encodeURIComponent(JSON.stringify([['reference_document', '=', todo]]));
      const res = await t.request({ method: 'GET', url: `/api/resource/Webhook Request Log?fields=["*"]&filters=${filters}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, any>[];
    }
  });
}
