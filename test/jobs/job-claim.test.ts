import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimJobs, hasDueJobs } from '../../src/jobs/job-claim.js';
import { insertJobs } from '../../src/jobs/job-store.js';
import { JOB_TABLE, jobTableStatements } from '../../src/jobs/job-table.js';
import type { Database } from '../../src/storage/database.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

const T = Date.UTC(2031, 0, 1);

for (const dialect of testDialects()) {
  describe(`job claims (${dialect.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      await db.transaction(async (q) => {
        for (const statement of jobTableStatements(db.dialect)) await q.run(statement);
      });
    });
    after(() => drop());
    beforeEach(() => db.transaction((q) => q.run(db.dialect.builder.deleteFrom(JOB_TABLE).compile())));

    /** Queues one job per entry, named after its handler so assertions read as the setup does. */
    async function enqueue(...jobs: { handler: string; runAt: number; queue?: string; timeoutMs?: number }[]) {
      await db.transaction((q) =>
        insertJobs(
          q,
          db.dialect,
          jobs.map((j) => ({
            handler: j.handler,
            args: '{}',
            queue: j.queue ?? 'default',
            maxRetries: 3,
            timeoutMs: j.timeoutMs ?? 1_000,
            runAt: j.runAt,
            runAs: 'Administrator',
            now: T,
          })),
        ),
      );
    }

    function claim(now: number, limit: number, queues?: string[]) {
      return db.transaction((q) => claimJobs(q, db.dialect, { now, limit, leaseMarginMs: 0, queues }));
    }

    const handlers = (jobs: { handler: string }[]) => jobs.map((j) => j.handler);

    test('due queued jobs and jobs whose lease ran out are claimed together, oldest run_at first, up to the limit', async () => {
      await enqueue({ handler: 'expired', runAt: T + 20, timeoutMs: 1_000 }, { handler: 'live', runAt: T + 5, timeoutMs: 60_000 });
      assert.deepEqual(handlers(await claim(T + 20, 10)), ['live', 'expired'], 'both taken by a worker that then died');
      await enqueue({ handler: 'first', runAt: T + 10 }, { handler: 'third', runAt: T + 30 }, { handler: 'future', runAt: T + 9_000 });

      const now = T + 5_000; // expired's lease ran out at T + 1020; live's holds until T + 60 020
      const taken = await claim(now, 2);
      assert.deepEqual(handlers(taken), ['first', 'expired']);
      const expired = taken[1]!;
      assert.equal(expired.status, 'running');
      assert.equal(expired.attempts, 2, 'a reclaimed job counts one more attempt');
      assert.equal(expired.lease_until, now + 1_000, 'a fresh lease of its timeout');
      assert.deepEqual(handlers(await claim(now, 10)), ['third'], 'not the future job, nor the live lease');
      assert.deepEqual(await claim(now, 10), []);
    });

    test('jobs due at the same time are claimed in name order', async () => {
      await enqueue(...Array.from({ length: 6 }, (_, i) => ({ handler: `same-${i}`, runAt: T })));
      const names = await db.read((q) => q.all<{ name: string }>(db.dialect.builder.selectFrom(JOB_TABLE).select('name').compile()));
      const sorted = names.map((r) => r.name).sort();
      const taken = [...(await claim(T, 4)), ...(await claim(T, 4))];
      assert.deepEqual(
        taken.map((j) => j.name),
        sorted,
      );
    });

    test('a worker on some queues claims only their jobs, queued or with a lease that ran out', async () => {
      await enqueue({ handler: 'mail-expired', runAt: T, queue: 'mail' }, { handler: 'report-expired', runAt: T, queue: 'report' });
      await claim(T, 10);
      await enqueue(
        { handler: 'mail-due', runAt: T + 1, queue: 'mail' },
        { handler: 'report-due', runAt: T + 2, queue: 'report' },
        { handler: 'default-due', runAt: T + 1 },
      );
      const now = T + 5_000;
      assert.deepEqual(handlers(await claim(now, 10, ['mail'])), ['mail-expired', 'mail-due']);
      assert.deepEqual(handlers(await claim(now, 10, ['report', 'default'])), ['report-expired', 'default-due', 'report-due']);
    });

    test('hasDueJobs sees a due queued job or a lease that ran out, on the queues asked for, and nothing else', async () => {
      const due = (now: number, queues?: string[]) => db.read((q) => hasDueJobs(q, db.dialect, now, queues));
      await enqueue({ handler: 'later', runAt: T + 100 });
      assert.equal(await due(T), false, 'not yet due');
      assert.equal(await due(T + 100), true);
      assert.equal(await due(T + 100, ['other']), false, 'another queue');
      await claim(T + 100, 10);
      assert.equal(await due(T + 100), false, 'running under its lease');
      assert.equal(await due(T + 100 + 1_000), true, 'its lease ran out');
      assert.equal(await due(T + 100 + 1_000, ['other']), false);
    });

    test('opening a site replaces the old (status, run_at) index by the claim index, and again changes nothing', async () => {
      await db.transaction(async (q) => {
        await q.run(db.dialect.builder.schema.dropIndex(`${JOB_TABLE}_claim`).ifExists().compile());
        await q.run(db.dialect.builder.schema.createIndex(`${JOB_TABLE}_due`).on(JOB_TABLE).columns(['status', 'run_at']).compile());
      });
      for (let open = 0; open < 2; open += 1) {
        await db.transaction(async (q) => {
          for (const statement of jobTableStatements(db.dialect)) await q.run(statement);
        });
        const indexes = await db.read((q) => db.dialect.listIndexes(q, JOB_TABLE));
        assert.ok(indexes.includes(`${JOB_TABLE}_claim`), indexes.join(', '));
        assert.ok(!indexes.includes(`${JOB_TABLE}_due`), indexes.join(', '));
      }
    });

    if (dialect.name === 'postgres') {
      test('two claimants at once never take the same job, and neither waits for the other', { timeout: 30_000 }, async () => {
        await enqueue({ handler: 'expired', runAt: T, timeoutMs: 1_000 });
        await claim(T, 1);
        await enqueue(...Array.from({ length: 8 }, (_, i) => ({ handler: `job-${i}`, runAt: T + 10 + i })));
        const now = T + 5_000;
        // The first claimant holds its rows locked while the second claims: the second would wait
        // forever (its statement timeout) if it did not skip them.
        const [first, second] = await db.transaction(async (q1) => {
          const mine = await claimJobs(q1, db.dialect, { now, limit: 3, leaseMarginMs: 0 });
          const theirs = await db.transaction((q2) => claimJobs(q2, db.dialect, { now, limit: 3, leaseMarginMs: 0 }));
          return [mine, theirs];
        });
        assert.deepEqual(handlers(first), ['expired', 'job-0', 'job-1']);
        const taken = new Set(handlers(first));
        assert.equal(second.length, 3);
        assert.ok(
          second.every((j) => !taken.has(j.handler)),
          `no job twice: ${handlers(second).join(', ')}`,
        );
        // job-2 may be skipped as well: it lost the first claimant's merge but stays locked until it commits.
        assert.deepEqual(handlers(second), handlers(second).sort(), 'in claim order');
      });
    }
  });
}
