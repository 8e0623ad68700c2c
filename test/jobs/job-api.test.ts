import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { JOB_METHODS } from '../../src/jobs/job-methods.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { createUser, type ActingUser } from '../helpers/permission-users.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

for (const dialect of testDialects()) {
  describe(`Background Job methods (${dialect.name})`, () => {
    let t: TestSite;
    let clerk: ActingUser;
    let manager: ActingUser;
    let failedName: string;
    let fixed = false;
    before(async () => {
      t = await startTestSite(dialect);
      clerk = await createUser(t, 'clerk@jobs.test');
      manager = await createUser(t, 'manager@jobs.test', { roles: ['System Manager'] });
      t.site.jobs.register('test_api.fails_until_fixed', () => {
        if (!fixed) throw new Error('not fixed yet: secret detail');
      });
      failedName = await t.site.jobs.enqueue('test_api.fails_until_fixed', { order: 7 }, { maxRetries: 0, jobId: 'order-7' });
      await new JobWorker(t.site.jobs).runDue();
    });
    after(() => t.close());

    const call = (method: 'GET' | 'POST', path: string, auth: string, body?: object) =>
      t.request({
        method,
        url: `/api/method/${JOB_METHODS}.${path}${method === 'GET' && body ? `?${new URLSearchParams(body as Record<string, string>)}` : ''}`,
        headers: { authorization: auth },
        ...(method === 'POST' ? { body: body ?? {} } : {}),
      });

    test('a user without System Manager can neither list, read, retry nor delete jobs', async () => {
      for (const [method, path, body] of [
        ['GET', 'get_jobs', undefined],
        ['GET', 'get_job', { name: failedName }],
        ['POST', 'retry_job', { name: failedName }],
        ['POST', 'delete_job', { name: failedName }],
      ] as const) {
        const res = await call(method, path, clerk.auth, body);
        assertV1Error(res, 403, 'PermissionError');
        assert.ok(!res.body.includes('secret detail'));
      }
      const stillThere = await call('GET', 'get_job', manager.auth, { name: failedName });
      assert.equal(stillThere.json().message.status, 'failed');
    });

    test('a System Manager lists failed jobs with their error, arguments and counts', async () => {
      const res = await call('GET', 'get_jobs', manager.auth, { status: 'failed' });
      assert.equal(res.statusCode, 200, res.body);
      const { jobs, counts } = res.json().message;
      const job = jobs.find((j: { name: string }) => j.name === failedName);
      assert.equal(job.handler, 'test_api.fails_until_fixed');
      assert.deepEqual(job.args, { order: 7 });
      assert.equal(job.job_id, 'order-7');
      assert.equal(job.attempts, 1);
      assert.match(job.error, /not fixed yet/);
      assert.ok(counts.failed >= 1);
    });

    test('bad list arguments and unknown jobs are 4xx, never 500', async () => {
      assertV1Error(await call('GET', 'get_jobs', manager.auth, { status: 'lost' }), 417, 'DataError');
      assertV1Error(await call('GET', 'get_jobs', manager.auth, { limit_start: '-1' }), 417, 'DataError');
      assertV1Error(await call('GET', 'get_job', manager.auth, { name: "x' or 1=1 --" }), 404, 'DoesNotExistError');
      assertV1Error(await call('POST', 'retry_job', manager.auth, { name: 'nope' }), 404, 'DoesNotExistError');
      assertV1Error(await call('POST', 'retry_job', manager.auth, {}), 417, 'FrappeTypeError');
      assertV1Error(await call('GET', 'retry_job', manager.auth, { name: failedName }), 403, 'PermissionError');
    });

    test('a System Manager retries a failed job, which then runs and leaves; a job that is not failed cannot be retried', async () => {
      fixed = true;
      const retried = await call('POST', 'retry_job', manager.auth, { name: failedName });
      assert.equal(retried.statusCode, 200, retried.body);
      assert.equal(retried.json().message.status, 'queued');
      assert.equal(retried.json().message.attempts, 0);
      assertV1Error(await call('POST', 'retry_job', manager.auth, { name: failedName }), 417, 'ValidationError');
      assert.equal(await new JobWorker(t.site.jobs).runDue(), 1);
      assertV1Error(await call('GET', 'get_job', manager.auth, { name: failedName }), 404, 'DoesNotExistError');
    });

    test('a System Manager deletes a failed job; a queued one is refused', async () => {
      fixed = false;
      const name = await t.site.jobs.enqueue('test_api.fails_until_fixed', {}, { maxRetries: 0 });
      assertV1Error(await call('POST', 'delete_job', manager.auth, { name }), 417, 'ValidationError');
      await new JobWorker(t.site.jobs).runDue();
      const deleted = await call('POST', 'delete_job', manager.auth, { name });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assertV1Error(await call('GET', 'get_job', manager.auth, { name }), 404, 'DoesNotExistError');
    });
  });
}
