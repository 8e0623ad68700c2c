import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/jobs/job-clock.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { claimJobs } from '../../src/jobs/job-claim.js';
import { completeJob, getJob, listJobs } from '../../src/jobs/job-store.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { ADMINISTRATOR_USER } from '../../src/auth/principal.js';
import { testDialects } from '../helpers/dialects.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/** A random() that always answers 0.5: no jitter, so retry times are exact. */
const noJitter = () => 0.5;

for (const dialect of testDialects()) {
  describe(`job queue (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    /** A queue of its own on the test site's database, with a clock the test moves. */
    function queue() {
      const clock = new ManualClock(Date.UTC(2031, 0, 1));
      const jobs = new JobQueue(t.site.db, clock);
      const worker = new JobWorker(jobs, { random: noJitter, units: siteJobUnits(t.site) });
      return { clock, jobs, worker };
    }

    async function rowsOf(handler: string) {
      return t.site.db.read((q) => listJobs(q, t.site.db.dialect, { handler, limit: 100, start: 0 }));
    }

    test('a job enqueued outside a unit runs once with its arguments, then leaves the table', async () => {
      const { jobs, worker } = queue();
      const seen: unknown[] = [];
      jobs.register('test.outside', (args, run) => {
        seen.push([args, run.attempt, run.user]);
      });
      await jobs.enqueue('test.outside', { n: 1, text: 'ü"\n' });
      assert.equal(await worker.runDue(), 1);
      assert.deepEqual(seen, [[{ n: 1, text: 'ü"\n' }, 1, ADMINISTRATOR_USER]]);
      assert.equal(await worker.runDue(), 0);
      assert.deepEqual(await rowsOf('test.outside'), []);
    });

    test('a job enqueued in a transaction that rolls back never exists; one that commits runs', async () => {
      const { jobs, worker } = queue();
      const seen: string[] = [];
      jobs.register('test.outbox', (args: { tag: string }) => {
        seen.push(args.tag);
      });
      await assert.rejects(
        t.site.db.transaction(async (q) => {
          await jobs.enqueue('test.outbox', { tag: 'rolled back' }, { unit: { q } });
          throw new Error('the write fails after enqueueing');
        }),
        /the write fails/,
      );
      await t.site.db.transaction((q) => jobs.enqueue('test.outbox', { tag: 'committed' }, { unit: { q } }));
      await worker.runDue();
      assert.deepEqual(seen, ['committed']);
    });

    test('a job enqueued by a request is written in its transaction and acts as its user', async () => {
      const { jobs, worker } = queue();
      const users: string[] = [];
      jobs.register('test.request', (_args, run) => {
        users.push(run.user);
      });
      t.site.methods.register('fw.test_jobs.enqueue_then', async ({ ctx, args }) => {
        await jobs.enqueue('test.request', {}, { unit: ctx });
        if (args.fail) throw new Error('refused after enqueueing');
        return 'ok';
      });
      const failed = await t.request({ method: 'POST', url: '/api/method/fw.test_jobs.enqueue_then', body: { fail: 1 } });
      assert.equal(failed.statusCode, 500);
      const ok = await t.request({ method: 'POST', url: '/api/method/fw.test_jobs.enqueue_then', body: {} });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(await worker.runDue(), 1);
      assert.deepEqual(users, [ADMINISTRATOR_USER]);
    });

    test('a jobId deduplicates while the job waits, and is free again once it ran', async () => {
      const { jobs, worker } = queue();
      let runs = 0;
      jobs.register('test.dedupe', () => {
        runs += 1;
      });
      const first = await jobs.enqueue('test.dedupe', { v: 1 }, { jobId: 'report-42' });
      const second = await jobs.enqueue('test.dedupe', { v: 2 }, { jobId: 'report-42' });
      const inTransaction = await t.site.db.transaction((q) => jobs.enqueue('test.dedupe', {}, { jobId: 'report-42', unit: { q } }));
      assert.equal(second, first);
      assert.equal(inTransaction, first);
      assert.equal((await rowsOf('test.dedupe')).length, 1);
      await worker.runDue();
      assert.equal(runs, 1);
      await jobs.enqueue('test.dedupe', {}, { jobId: 'report-42' });
      await worker.runDue();
      assert.equal(runs, 2);
    });

    test('a failing job is retried with exponential backoff on the clock, keeping its error, then succeeds', async () => {
      const { clock, jobs, worker } = queue();
      let runs = 0;
      jobs.register('test.flaky', () => {
        runs += 1;
        if (runs < 3) throw new Error(`failure number ${runs}`);
      });
      const name = await jobs.enqueue('test.flaky', {}, { maxRetries: 5 });
      assert.equal(await worker.runDue(), 1);
      let row = await t.site.db.read((q) => getJob(q, t.site.db.dialect, name));
      assert.equal(row?.status, 'queued');
      assert.equal(row?.attempts, 1);
      assert.match(String(row?.error), /failure number 1/);
      assert.equal(row?.run_at, clock.now() + 5_000, 'first retry after 5 s');

      assert.equal(await worker.runDue(), 0, 'not due before its time');
      clock.advance(5_000);
      assert.equal(await worker.runDue(), 1);
      row = await t.site.db.read((q) => getJob(q, t.site.db.dialect, name));
      assert.equal(row?.attempts, 2);
      assert.equal(row?.run_at, clock.now() + 10_000, 'second retry after 10 s');
      clock.advance(9_999);
      assert.equal(await worker.runDue(), 0);
      clock.advance(1);
      assert.equal(await worker.runDue(), 1);
      assert.equal(runs, 3);
      assert.equal(await t.site.db.read((q) => getJob(q, t.site.db.dialect, name)), undefined, 'done jobs leave the table');
    });

    test('a job out of retries is kept as failed with its error, and its jobId can be used again', async () => {
      const { clock, jobs, worker } = queue();
      jobs.register('test.broken', () => {
        throw new TypeError('always broken');
      });
      const name = await jobs.enqueue('test.broken', {}, { maxRetries: 1, jobId: 'broken-1' });
      await worker.runDue();
      clock.advance(60_000);
      await worker.runDue();
      const row = await t.site.db.read((q) => getJob(q, t.site.db.dialect, name));
      assert.equal(row?.status, 'failed');
      assert.equal(row?.attempts, 2);
      assert.match(String(row?.error), /TypeError: always broken/);
      const again = await jobs.enqueue('test.broken', {}, { jobId: 'broken-1' });
      assert.notEqual(again, name);
    });

    test('a job that outlives its timeout fails with a timeout error and its signal aborts', async () => {
      const { jobs, worker } = queue();
      let aborted = false;
      jobs.register('test.slow', (_args, run) => {
        run.signal.addEventListener('abort', () => {
          aborted = true;
        });
        return new Promise<void>(() => {});
      });
      const name = await jobs.enqueue('test.slow', {}, { timeout: 50, maxRetries: 0 });
      await worker.runDue();
      const row = await t.site.db.read((q) => getJob(q, t.site.db.dialect, name));
      assert.equal(row?.status, 'failed');
      assert.match(String(row?.error), /Timed out after 50 ms/);
      assert.equal(aborted, true);
    });

    test('a job whose worker died is taken over once its lease runs out, and the dead claim cannot finish it', async () => {
      const { clock, jobs, worker } = queue();
      let runs = 0;
      jobs.register('test.orphan', () => {
        runs += 1;
      });
      const name = await jobs.enqueue('test.orphan', {}, { timeout: 10_000 });
      // A worker claims the job and dies before finishing it.
      const [dead] = await t.site.db.transaction((q) => claimJobs(q, t.site.db.dialect, { now: clock.now(), limit: 10, leaseMarginMs: 30_000 }));
      assert.equal(dead?.name, name);
      assert.equal(await worker.runDue(), 0, 'the lease still holds');
      clock.advance(40_000);
      assert.equal(await worker.runDue(), 1, 'taken over after timeout + margin');
      assert.equal(runs, 1);
      assert.equal(await t.site.db.transaction((q) => completeJob(q, t.site.db.dialect, dead)), false);
    });

    test('a job can write documents as its user through its run', async () => {
      const { jobs, worker } = queue();
      jobs.register('test.writes', async (args: { description: string }, run) => {
        await run.write((ctx) => t.site.documents.insert(ctx, 'ToDo', { description: args.description }));
      });
      await jobs.enqueue('test.writes', { description: 'written by a job' });
      await worker.runDue();
      const list = await t.request({ method: 'GET', url: '/api/resource/ToDo?filters=[["description","=","written by a job"]]&fields=["owner"]' });
      assert.deepEqual(list.json().data, [{ owner: ADMINISTRATOR_USER }]);
    });

    test('enqueue refuses an unknown handler, bad options and arguments that are not JSON', async () => {
      const { jobs } = queue();
      jobs.register('test.checked', () => {});
      await assert.rejects(jobs.enqueue('test.nobody', {}), /No job handler is registered as "test.nobody"/);
      await assert.rejects(jobs.enqueue('test.checked', {}, { timeout: -1 }), /timeout must be/);
      await assert.rejects(jobs.enqueue('test.checked', {}, { maxRetries: 1.5 }), /maxRetries must be/);
      await assert.rejects(jobs.enqueue('test.checked', {}, { delay: Number.NaN }), /delay/);
      await assert.rejects(jobs.enqueue('test.checked', {}, { jobId: '' }), /jobId/);
      await assert.rejects(jobs.enqueue('test.checked', { n: 1n }), /BigInt/);
      assert.throws(() => jobs.register('test.checked', () => {}), /already registered/);
      assert.throws(() => jobs.register('not a name', () => {}), /dotted identifiers/);
    });

    test('the running loop picks up a job enqueued in this process without waiting for a poll', async () => {
      const jobs = new JobQueue(t.site.db);
      const worker = new JobWorker(jobs, { pollMs: 60_000 });
      let resolveRan: () => void = () => {};
      const ran = new Promise<void>((resolve) => (resolveRan = resolve));
      jobs.register('test.loop', () => resolveRan());
      worker.start();
      try {
        await jobs.enqueue('test.loop', {});
        await ran;
      } finally {
        await worker.stop();
      }
    });

    test('a worker sweeps the job sources when it starts and in runDue, and flushes them before it claims', async () => {
      const { jobs, worker } = queue();
      const calls: string[] = [];
      const ran: string[] = [];
      jobs.register('test.from_source', (args: { tag: string }) => {
        ran.push(args.tag);
      });
      jobs.addSource({
        async flush() {
          calls.push('flush');
          if (!calls.includes('written')) {
            calls.push('written');
            const batch = [
              { handler: 'test.from_source', args: { tag: 'batched' }, options: { jobId: 'source:1' } },
              { handler: 'test.from_source', args: { tag: 'twice' }, options: { jobId: 'source:1' } },
            ];
            await t.site.db.transaction((q) => jobs.enqueueBatch(batch, { q }));
          }
        },
        async sweep() {
          calls.push('sweep');
        },
      });
      await worker.runDue();
      assert.equal(calls[0], 'sweep', 'runDue sweeps first');
      assert.ok(calls.includes('flush'), 'and flushes before claiming');
      assert.deepEqual(ran, ['batched'], 'the batch ran once: the second job had the same id');
      calls.length = 0;
      const started = new JobWorker(jobs);
      started.start();
      await started.stop();
      assert.equal(calls[0], 'sweep', 'a started worker sweeps first');
    });
  });
}
