import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimJobs, hasDueJobs } from '../../src/jobs/job-claim.js';
import { insertJobs } from '../../src/jobs/job-store.js';
import { JOB_TABLE, jobTableStatements } from '../../src/jobs/job-table.js';
import type { Database, Queryable, SqlStatement } from '../../src/storage/database.js';
import { openTestDatabase, testDialects } from '../helpers/dialects.js';

/*
 * A claim must cost a few index rows however many jobs wait: no full scan of the job table and no
 * sort of every due row (docs/jobs.md "The table"). SQLite plans by rule here (fw never runs
 * ANALYZE), so a handful of rows shows its plan; PostgreSQL plans by statistics, so its table gets
 * thousands of rows and an ANALYZE, as autovacuum gives a busy queue.
 */

const T = Date.UTC(2031, 0, 1);
const CLAIM_INDEX = `${JOB_TABLE}_claim`;

/** The reading statements claimJobs and hasDueJobs send, with and without a queue filter; nothing runs. */
async function claimStatements(db: Database): Promise<SqlStatement[]> {
  const seen: SqlStatement[] = [];
  const recorder: Queryable = {
    all: async <R>(s: SqlStatement) => {
      seen.push(s);
      return [] as R[];
    },
    run: async () => ({ changes: 0 }),
    iterate: () => {
      throw new Error('not used by a claim');
    },
  };
  for (const queues of [undefined, ['a']]) {
    // Nothing is due to the recorder, so hasDueJobs sends both of its probes.
    await hasDueJobs(recorder, db.dialect, T, queues);
    await claimJobs(recorder, db.dialect, { now: T, limit: 8, leaseMarginMs: 0, queues });
  }
  return seen;
}

async function explain(db: Database, s: SqlStatement): Promise<string> {
  const prefix = db.dialect.name === 'sqlite' ? 'explain query plan ' : 'explain ';
  const rows = await db.transaction((q) => q.all<Record<string, string>>({ sql: prefix + s.sql, parameters: s.parameters }));
  return rows.map((r) => r.detail ?? r['QUERY PLAN']).join('\n');
}

for (const dialect of testDialects()) {
  describe(`job claim plans (${dialect.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    before(async () => {
      ({ db, drop } = await openTestDatabase(dialect));
      const batches = dialect.name === 'postgres' ? 10 : 1;
      await db.transaction(async (q) => {
        for (const statement of jobTableStatements(db.dialect)) await q.run(statement);
        for (let b = 0; b < batches; b += 1) {
          const jobs = Array.from({ length: 500 }, (_, i) => ({
            handler: 'h',
            args: '{}',
            queue: i % 2 ? 'a' : 'b',
            maxRetries: 3,
            timeoutMs: 1_000,
            runAt: T - 10_000 + b * 500 + i,
            runAs: 'Administrator',
            now: T,
          }));
          await insertJobs(q, db.dialect, jobs);
        }
        await claimJobs(q, db.dialect, { now: T, limit: 8, leaseMarginMs: 0 });
        if (dialect.name === 'postgres') await q.run({ sql: `analyze "${JOB_TABLE}"`, parameters: [] });
      });
    });
    after(() => drop());

    test('every claim statement reads the claim index in order: no table scan, no sort of the due jobs', async () => {
      const statements = await claimStatements(db);
      assert.equal(statements.length, 8, statements.map((s) => s.sql).join('\n'));
      for (const s of statements) {
        const plan = await explain(db, s);
        const what = `${s.sql}\n${plan}`;
        assert.ok(plan.includes(CLAIM_INDEX), `uses ${CLAIM_INDEX}: ${what}`);
        if (dialect.name === 'sqlite') {
          assert.doesNotMatch(plan, /TEMP B-TREE/, what);
          assert.doesNotMatch(plan, new RegExp(`^SCAN ${JOB_TABLE}\\b`, 'm'), what);
        } else {
          assert.doesNotMatch(plan, /Seq Scan/, what);
          // Queued jobs come in order from the index; leases that ran out are few and may be sorted.
          if (s.sql.includes('"run_at" <=')) assert.doesNotMatch(plan, /Sort/, what);
        }
      }
    });
  });
}
