import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/http/app.js';
import { newJobName } from '../../src/jobs/job-name.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { openSite } from '../../src/site/open-site.js';
import type { Site } from '../../src/site/site.js';
import { OUTBOX_TABLE, SNAPSHOT_TABLE } from '../../src/webhooks/outbox-table.js';
import { DELIVER_JOB } from '../../src/webhooks/webhook-delivery.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * The webhook outbox (docs/webhooks.md "How a change becomes a request"): a match writes one outbox
 * row in the document's transaction; after the commit a batch turns it into a Webhook Request Log
 * and a delivery job; a sweep finds the rows of a process killed before its batch ran; an entry
 * that fails even alone is set aside, so it cannot hold back the ones after it.
 */
for (const dialect of testDialects()) {
  describe(`webhook outbox (${dialect.name})`, () => {
    let t: TestSite;
    let receiver: WebhookReceiver;
    let worker: JobWorker;
    /** A second site on the same database: another process, as far as the outbox can tell. */
    let other: Site;
    const otherErrors: unknown[] = [];
    before(async () => {
      t = await startTestSite(dialect, { config: { webhook_allowed_targets: ['127.0.0.1'] } });
      receiver = await new WebhookReceiver().start();
      worker = new JobWorker(t.site.jobs);
      t.site.methods.register('fw.test_outbox.write', async ({ ctx, args }) => {
        const doc = await t.site.documents.insert(ctx, 'ToDo', { description: String(args.description) });
        if (args.fail) throw new Error('refused after the write');
        return doc.name;
      });
      other = await openSite(t.site.paths.root);
      other.logger = { error: (obj: object) => otherErrors.push(obj) };
      // Killed right after its commit: the database goes away before the outbox's batch can run.
      other.methods.register('fw.test_outbox.write_and_die', async ({ ctx, args }) => {
        const doc = await other.documents.insert(ctx, 'ToDo', { description: String(args.description) });
        ctx.unit.afterCommit(() => other.db.close());
        return doc.name;
      });
      await t.request({
        method: 'POST',
        url: '/api/resource/Webhook',
        body: { webhook_doctype: 'ToDo', webhook_docevent: 'after_insert', request_url: receiver.url(), webhook_json: '{"text": "{{ doc.description }}"}' },
      });
    });
    after(async () => {
      await receiver.stop();
      await t.close();
    });

    async function logsOf(todo: string) {
      const filters = encodeURIComponent(JSON.stringify([['reference_document', '=', todo]]));
      const res = await t.request({ method: 'GET', url: `/api/resource/Webhook Request Log?fields=["*"]&filters=${filters}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, any>[];
    }
    async function deliveryJobs() {
      const res = await t.request({ method: 'GET', url: `/api/method/fw.core.background_job.get_jobs?handler=${DELIVER_JOB}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().message.jobs as Record<string, any>[];
    }
    async function outboxRows(): Promise<number> {
      const rows = await t.site.db.read((q) => q.all(t.site.db.dialect.builder.selectFrom(OUTBOX_TABLE).select('name').compile()));
      return rows.length;
    }
    async function snapshotRows(): Promise<number> {
      const rows = await t.site.db.read((q) => q.all(t.site.db.dialect.builder.selectFrom(SNAPSHOT_TABLE).select('name').compile()));
      return rows.length;
    }
    function bodiesSince(count: number) {
      return receiver.received.slice(count).map((r) => JSON.parse(r.body));
    }

    test('after the commit, the batch writes a Pending log, the document it renders from and its delivery job; the worker renders, keeps the request and delivers it once', async () => {
      const before = receiver.received.length;
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'batched' } });
      assert.equal(res.statusCode, 200, res.body);
      const todo = res.json().data.name as string;
      await t.site.jobs.flushSources();
      assert.equal(await outboxRows(), 0, 'the batch took the outbox row');
      const [log] = await logsOf(todo);
      assert.equal(log.status, 'Pending');
      assert.equal(log.attempt, 0);
      assert.equal(log.data, '', 'nothing is rendered before the first attempt');
      assert.equal(await snapshotRows(), 1, 'the document waits in its own table, not on the log');
      assert.match(log.webhook_id, /^msg_/);
      const job = (await deliveryJobs()).find((j) => j.job_id === `webhook:${log.name}:1`);
      assert.ok(job, 'the delivery job is queued');
      assert.equal(job.status, 'queued');
      await worker.runDue();
      assert.deepEqual(bodiesSince(before), [{ text: 'batched' }]);
      const [done] = await logsOf(todo);
      assert.equal(done.status, 'Delivered');
      assert.equal(done.webhook_id, log.webhook_id);
      assert.deepEqual(JSON.parse(done.data), { text: 'batched' }, 'the rendered request is kept for retries');
      assert.equal(await snapshotRows(), 0, 'the document is dropped once rendered');
    });

    test('a rolled-back write leaves no outbox row, no log and no job, even after a sweep', async () => {
      const before = receiver.received.length;
      const jobsBefore = (await deliveryJobs()).length;
      const res = await t.request({ method: 'POST', url: '/api/method/fw.test_outbox.write', body: { description: 'rolled back', fail: 1 } });
      assert.equal(res.statusCode, 500);
      assert.equal(await outboxRows(), 0);
      await t.site.jobs.sweepSources();
      await t.site.jobs.flushSources();
      assert.equal((await deliveryJobs()).length, jobsBefore);
      await worker.runDue();
      assert.equal(receiver.received.length, before, 'nothing was sent');
      const filters = encodeURIComponent(JSON.stringify([['data', 'like', '%rolled back%']]));
      const logs = await t.request({ method: 'GET', url: `/api/resource/Webhook Request Log?filters=${filters}` });
      assert.deepEqual(logs.json().data, []);
    });

    test('a write committed by a process killed before its batch ran is delivered after the next sweep, once', async () => {
      const before = receiver.received.length;
      const app = await buildApp(other);
      try {
        const res = await app.inject({
          method: 'POST',
          url: '/api/method/fw.test_outbox.write_and_die',
          headers: { authorization: t.adminAuth },
          payload: { description: 'committed, then killed' },
        });
        assert.equal(res.statusCode, 200, res.body);
        const todo = res.json().message as string;
        assert.equal(await outboxRows(), 1, 'the committed outbox row waits');
        assert.deepEqual(await logsOf(todo), [], 'no log before the sweep');
        // runDue sweeps the job sources first, as a worker does when it starts.
        await worker.runDue();
        assert.deepEqual(bodiesSince(before), [{ text: 'committed, then killed' }]);
        const logs = await logsOf(todo);
        assert.deepEqual(
          logs.map((l) => [l.status, l.attempt]),
          [['Delivered', 1]],
        );
        await worker.runDue();
        assert.equal(receiver.received.length, before + 1, 'delivered once');
        assert.equal(await outboxRows(), 0);
      } finally {
        await app.close().catch(() => {});
      }
    });

    test('an outbox entry that fails every time is set aside and reported; the entries after it are delivered', async () => {
      const first = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'delivered first' } });
      await t.site.jobs.flushSources();
      await worker.runDue();
      const [log] = await logsOf(first.json().data.name);
      // A row as an earlier fw wrote it (named by UUID version 7), for a log that exists already:
      // writing that log again fails in every batch that takes the row.
      const entry = {
        log: log.name,
        webhookId: `msg_${newJobName()}`,
        at: Date.now() - 1000,
        webhook: log.webhook,
        doctype: 'ToDo',
        docname: log.reference_document,
        event: 'after_insert',
        user: 'Administrator',
        url: log.url,
        method: 'POST',
        doc: { name: log.reference_document, description: 'poison' },
      };
      const { db } = t.site;
      await db.transaction((q) =>
        q.run(
          db.dialect.builder
            .insertInto(OUTBOX_TABLE)
            .values({ name: newJobName(entry.at), entry: JSON.stringify(entry) })
            .compile(),
        ),
      );
      const reported: { err?: unknown }[] = [];
      const logger = t.site.logger;
      t.site.logger = { error: (obj: object) => reported.push(obj) };
      try {
        const before = receiver.received.length;
        const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'after the poison' } });
        assert.equal(res.statusCode, 200, res.body);
        await t.site.jobs.flushSources();
        assert.equal(await outboxRows(), 0, 'the failing row was set aside, not left to fail the next batch');
        const messages = reported.map((r) => String((r.err as Error | undefined)?.message));
        assert.ok(
          messages.some((m) => m.includes('set aside') && m.includes(log.name)),
          `the row set aside is reported with what it held: ${JSON.stringify(messages)}`,
        );
        const [later] = await logsOf(res.json().data.name);
        assert.equal(later?.status, 'Pending', 'the later entry got its log');
        await worker.runDue();
        const [sent] = await logsOf(res.json().data.name);
        assert.deepEqual(bodiesSince(before), [{ text: 'after the poison' }], `the later log: ${sent?.status} ${sent?.error}`);
        assert.deepEqual(
          (await logsOf(first.json().data.name)).map((l) => l.status),
          ['Delivered'],
          'the existing log was not touched',
        );
      } finally {
        t.site.logger = logger;
      }
    });

    test('the batch and sweeps taking the same rows at once make one log and one delivery; the same job id enqueued again runs once', async () => {
      const before = receiver.received.length;
      const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'raced' } });
      const todo = res.json().data.name as string;
      const second = await openSite(t.site.paths.root);
      try {
        if (dialect.name === 'postgres') {
          await Promise.all([t.site.jobs.flushSources(), t.site.jobs.sweepSources(), second.jobs.sweepSources()]);
        } else {
          // Two SQLite handles in one process cannot wait for each other (the busy wait blocks the
          // thread holding the lock), so here the other "process" sweeps once this one is done.
          await Promise.all([t.site.jobs.flushSources(), t.site.jobs.sweepSources()]);
          await second.jobs.sweepSources();
        }
      } finally {
        await second.close();
      }
      const logs = await logsOf(todo);
      assert.equal(logs.length, 1, 'one log');
      const jobId = `webhook:${logs[0].name}:1`;
      const queued = (await deliveryJobs()).filter((j) => j.job_id === jobId);
      assert.equal(queued.length, 1, 'one job');
      const again = await t.site.jobs.enqueue(DELIVER_JOB, { log: logs[0].name }, { jobId });
      assert.equal(again, queued[0].name, 'enqueuing the same job id answers the waiting job');
      await worker.runDue();
      assert.deepEqual(bodiesSince(before), [{ text: 'raced' }]);
    });
  });
}
