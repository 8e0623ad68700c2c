import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runInUnit, UnitOfWork } from './unit-of-work.js';

/** A unit whose failed callbacks are collected instead of logged. */
function unitWithReport(): { unit: UnitOfWork; failures: string[] } {
  const failures: string[] = [];
  const unit = new UnitOfWork((err, phase) => failures.push(`${phase}: ${(err as Error).message}`));
  return { unit, failures };
}

describe('UnitOfWork', () => {
  test('runs after-commit callbacks once, in registration order, and drops the after-rollback ones', async () => {
    const { unit } = unitWithReport();
    const ran: string[] = [];
    unit.afterCommit(() => void ran.push('a'));
    unit.afterRollback(() => void ran.push('undo'));
    unit.afterCommit(async () => void ran.push('b'));
    await unit.committed();
    await unit.committed();
    assert.deepEqual(ran, ['a', 'b']);
  });

  test('runs after-rollback callbacks latest first and never the after-commit ones', async () => {
    const { unit } = unitWithReport();
    const ran: string[] = [];
    unit.afterRollback(() => void ran.push('first'));
    unit.afterCommit(() => void ran.push('commit'));
    unit.afterRollback(() => void ran.push('second'));
    await unit.rolledBack();
    assert.deepEqual(ran, ['second', 'first']);
  });

  test('a failing callback is reported and the ones after it still run', async () => {
    const { unit, failures } = unitWithReport();
    const ran: string[] = [];
    unit.afterCommit(() => {
      throw new Error('boom');
    });
    unit.afterCommit(() => void ran.push('after'));
    await unit.committed();
    assert.deepEqual(ran, ['after']);
    assert.deepEqual(failures, ['afterCommit: boom']);
  });

  test('a rolled-back savepoint forgets its after-commit work and runs its after-rollback work now', async () => {
    const { unit } = unitWithReport();
    const ran: string[] = [];
    unit.afterCommit(() => void ran.push('outer'));
    const outer = unit.mark();
    unit.afterCommit(() => void ran.push('inner kept'));
    const inner = unit.mark();
    unit.afterCommit(() => void ran.push('inner undone'));
    unit.afterRollback(() => void ran.push('inner rollback'));
    await unit.rolledBackTo(inner);
    assert.deepEqual(ran, ['inner rollback']);
    await unit.committed();
    assert.deepEqual(ran, ['inner rollback', 'outer', 'inner kept']);
    assert.ok(outer.commits === 1);
  });

  test('refuses callbacks registered after the unit ended, which would never run', async () => {
    const { unit } = unitWithReport();
    await unit.committed();
    assert.throws(() => unit.afterCommit(() => undefined), /has ended/);
    const idle = unitWithReport().unit;
    assert.equal(idle.seal(), true);
    assert.throws(() => idle.afterRollback(() => undefined), /has ended/);
  });

  test('seal() leaves a unit with callbacks open', () => {
    const { unit } = unitWithReport();
    unit.afterCommit(() => undefined);
    assert.equal(unit.seal(), false);
    unit.afterCommit(() => undefined);
  });
});

describe('runInUnit', () => {
  /** A transaction runner that retries the work once when it throws `retry`, like a dialect on a serialisation failure. */
  function retryingRunner(log: string[]) {
    return async <T>(work: (q: string) => Promise<T>): Promise<T> => {
      try {
        return await work('attempt 1');
      } catch (err) {
        if ((err as Error).message !== 'retry') throw err;
        log.push('rolled back attempt 1');
        return work('attempt 2');
      }
    };
  }

  test('a retried attempt rolls back its own callbacks; only the committed attempt runs after-commit work', async () => {
    const log: string[] = [];
    const result = await runInUnit(
      retryingRunner(log),
      () => undefined,
      async (q, unit) => {
        unit.afterCommit(() => void log.push(`commit of ${q}`));
        unit.afterRollback(() => void log.push(`rollback of ${q}`));
        if (q === 'attempt 1') throw new Error('retry');
        return 42;
      },
    );
    assert.equal(result, 42);
    assert.deepEqual(log, ['rolled back attempt 1', 'rollback of attempt 1', 'commit of attempt 2']);
  });

  test('a failed transaction runs after-rollback work and passes the error on', async () => {
    const log: string[] = [];
    await assert.rejects(
      runInUnit(
        retryingRunner(log),
        () => undefined,
        async (_q, unit) => {
          unit.afterCommit(() => void log.push('commit'));
          unit.afterRollback(() => void log.push('rollback'));
          throw new Error('refused');
        },
      ),
      /refused/,
    );
    assert.deepEqual(log, ['rollback']);
  });

  test('a commit that fails (the runner throws after the work) counts as a rollback', async () => {
    const log: string[] = [];
    const failingCommit = async <T>(work: (q: null) => Promise<T>): Promise<T> => {
      await work(null);
      throw new Error('commit failed');
    };
    await assert.rejects(
      runInUnit(
        failingCommit,
        () => undefined,
        async (_q, unit) => {
          unit.afterCommit(() => void log.push('commit'));
          unit.afterRollback(() => void log.push('rollback'));
        },
      ),
      /commit failed/,
    );
    assert.deepEqual(log, ['rollback']);
  });
});
