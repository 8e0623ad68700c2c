import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/jobs/job-clock.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { registerScheduledRunJob, Scheduler } from '../../src/jobs/scheduler.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { createUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

for (const dialect of testDialects()) {
  describe(`scheduler (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    /** A queue, worker and scheduler of their own on the test site's database, on a clock the test moves. */
    function setup(start: string) {
      const clock = new ManualClock(Date.parse(start));
      const jobs = new JobQueue(t.site.db, clock);
      const deps = { db: t.site.db, metas: t.site.metas, jobs, timeZone: () => 'UTC' };
      registerScheduledRunJob(deps);
      return { clock, jobs, worker: new JobWorker(jobs), scheduler: new Scheduler(deps, { clock }), deps };
    }

    async function logsOf(handler: string) {
      const res = await t.request({
        method: 'GET',
        url: `/api/resource/Scheduled Job Log?fields=["status","slot","frequency","details"]&filters=${encodeURIComponent(JSON.stringify([['scheduled_job_type', '=', handler]]))}&order_by=slot asc&limit_page_length=0`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data as Record<string, string>[];
    }

    test('a new schedule waits for its next slot, runs it once, and a missed stretch runs once, not once per slot', async () => {
      const { clock, jobs, worker, scheduler } = setup('2031-03-04T10:30:00Z');
      let runs = 0;
      jobs.register('test_sched.hourly', () => {
        runs += 1;
      });
      jobs.schedule('hourly', 'test_sched.hourly');
      assert.deepEqual(await scheduler.tick(), [], 'first sight: the current slot counts as done');
      clock.advance(20 * 60_000); // 10:50
      assert.deepEqual(await scheduler.tick(), []);
      clock.advance(15 * 60_000); // 11:05
      assert.deepEqual(await scheduler.tick(), ['test_sched.hourly']);
      assert.deepEqual(await scheduler.tick(), [], 'the slot is taken');
      await worker.runDue();
      assert.equal(runs, 1);
      clock.advance(5 * 3_600_000); // 16:05: five slots missed while "down"
      assert.deepEqual(await scheduler.tick(), ['test_sched.hourly']);
      await worker.runDue();
      assert.equal(runs, 2);
      assert.deepEqual(
        (await logsOf('test_sched.hourly')).map((l) => [l.slot, l.status, l.frequency]),
        [
          ['2031-03-04 11:00:00', 'Complete', 'hourly'],
          ['2031-03-04 16:00:00', 'Complete', 'hourly'],
        ],
      );
    });

    test('two schedulers (two processes) seeing the same slot enqueue it once', async () => {
      const a = setup('2031-03-04T10:00:30Z');
      const deps2 = { ...a.deps };
      const b = new Scheduler(deps2, { clock: a.clock });
      let runs = 0;
      a.jobs.register('test_sched.cron', () => {
        runs += 1;
      });
      a.jobs.schedule('*/15 * * * *', 'test_sched.cron');
      await a.scheduler.tick();
      a.clock.advance(15 * 60_000);
      const results = await Promise.all([a.scheduler.tick(), b.tick(), a.scheduler.tick(), b.tick()]);
      assert.equal(results.flat().length, 1);
      await a.worker.runDue();
      assert.equal(runs, 1);
    });

    test('a failing scheduled handler is logged as Failed with its error; the next slot runs again', async () => {
      const { clock, jobs, worker, scheduler } = setup('2031-03-04T23:59:00Z');
      jobs.register('test_sched.broken', () => {
        throw new Error('the report could not be built');
      });
      jobs.schedule('daily', 'test_sched.broken');
      await scheduler.tick();
      clock.advance(2 * 60_000);
      await scheduler.tick();
      await worker.runDue();
      const [log] = await logsOf('test_sched.broken');
      assert.equal(log.status, 'Failed');
      assert.match(log.details, /the report could not be built/);
      clock.advance(24 * 3_600_000);
      assert.deepEqual(await scheduler.tick(), ['test_sched.broken']);
    });

    test('schedules are checked when declared', () => {
      const { jobs } = setup('2031-03-04T00:00:00Z');
      jobs.register('test_sched.checked', () => {});
      assert.throws(() => jobs.schedule('every tuesday', 'test_sched.checked'), /neither all, hourly, daily, weekly, monthly nor a cron expression/);
      assert.throws(() => jobs.schedule('daily', 'test_sched.unknown'), /no job handler is registered/);
      jobs.schedule('weekly', 'test_sched.checked');
      assert.throws(() => jobs.schedule('daily', 'test_sched.checked'), /already scheduled/);
    });

    test('the Scheduled Job Log is for System Managers only', async () => {
      const clerk = await createUser(t, 'clerk@scheduler.test');
      assertV1Error(await t.request({ method: 'GET', url: '/api/resource/Scheduled Job Log', headers: { authorization: clerk.auth } }), 403, 'PermissionError');
    });
  });
}
