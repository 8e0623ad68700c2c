import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { FwError } from '../../src/errors/index.js';
import type { Database } from '../../src/storage/database.js';
import { PostgresDatabase } from '../../src/storage/postgres/postgres-database.js';
import { testDialects, type DialectCase } from '../helpers/dialects.js';

// What only PostgreSQL has: pooled connections, retries, cursors and timeouts.
const postgres: DialectCase | undefined = testDialects().find((d) => d.name === 'postgres');

function rejectsWith(excType: string, status: number) {
  return (err: unknown) => {
    assert.ok(err instanceof FwError, `expected ${excType}, got ${String(err)}`);
    assert.equal(err.excType, excType);
    assert.equal(err.status, status);
    return true;
  };
}

describe('PostgreSQL database', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, () => {
  let url: string;
  let dropDatabase: () => Promise<void>;
  let db: Database;
  const stmt = (text: string) => ({ sql: text, parameters: [] });

  before(async () => {
    ({ url, drop: dropDatabase } = await postgres!.createUrl());
    db = new PostgresDatabase({ connectionString: url, poolSize: 4 });
    await db.transaction(async (q) => {
      await q.run(stmt('create table "tabLock" (name varchar(10) primary key, n integer)'));
      await q.run(stmt(`insert into "tabLock" values ('a', 0), ('b', 0)`));
    });
  });
  after(async () => {
    await db.close();
    await dropDatabase();
  });

  /** What the server says the fw connections of this database are doing. */
  async function sessionStates(): Promise<string[]> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ state: string }>(
        "select state from pg_stat_activity where datname = current_database() and application_name = 'fw' and pid <> pg_backend_pid()",
      );
      return rows.map((r) => r.state);
    } finally {
      await client.end();
    }
  }

  test("a read unit's COMMIT travels with the next message on its connection, or a timer sends it", async () => {
    const single = new PostgresDatabase({ connectionString: url, poolSize: 1 });
    try {
      assert.deepEqual(await single.read((q) => q.all(stmt(`select n from "tabLock" where name = 'a'`))), [{ n: 0 }]);
      // The one connection is taken by a transaction whose first message commits the read first.
      await single.transaction((q) => q.run(stmt(`update "tabLock" set n = 5 where name = 'a'`)));
      assert.deepEqual(await single.read((q) => q.all(stmt(`select n from "tabLock" where name = 'a'`))), [{ n: 5 }]);
      assert.deepEqual(await single.readOne(stmt(`select n from "tabLock" where name = 'a'`)), [{ n: 5 }], 'readOne commits it before its statement');
      await single.read((q) => q.all(stmt('select 1')));
      let states = await sessionStates();
      for (let i = 0; i < 100 && states.includes('idle in transaction'); i++) {
        await new Promise((r) => setTimeout(r, 20));
        states = await sessionStates();
      }
      assert.ok(states.length > 0 && !states.includes('idle in transaction'), `an idle connection keeps a read transaction open: ${states.join(', ')}`);
    } finally {
      await single.close();
      await db.transaction((q) => q.run(stmt(`update "tabLock" set n = 0 where name = 'a'`)));
    }
  });

  test('a table change waits for no idle read transaction longer than a moment', async () => {
    await db.read((q) => q.all(stmt('select * from "tabLock"')));
    const { default: pg } = await import('pg');
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      // Without the timer the ALTER would wait for the idle connection's ACCESS SHARE lock.
      await other.query("set lock_timeout = '5s'");
      await other.query('alter table "tabLock" add column extra integer');
      await other.query('alter table "tabLock" drop column extra');
    } finally {
      await other.end();
    }
  });

  test('a deadlock between two transactions is retried until both commit', async () => {
    let attempts = 0;
    let arrived = 0;
    let bothHoldALock!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldALock = resolve));
    const bump = (row: string) => stmt(`update "tabLock" set n = n + 1 where name = '${row}'`);
    const crosswise = (first: string, second: string) =>
      db.transaction(async (q) => {
        const attempt = ++attempts;
        await q.run(bump(first));
        if (attempt <= 2) {
          if (++arrived === 2) bothHoldALock();
          await barrier;
        }
        await q.run(bump(second));
      });
    await Promise.all([crosswise('a', 'b'), crosswise('b', 'a')]);
    assert.equal(attempts, 3, 'one of the two first attempts was chosen as the deadlock victim and ran again');
    const rows = await db.read((q) => q.all(stmt('select name, n from "tabLock" order by name')));
    assert.deepEqual(rows, [
      { name: 'a', n: 2 },
      { name: 'b', n: 2 },
    ]);
  });

  test('a conflict that keeps coming back ends as a 503 after a few attempts', async () => {
    let attempts = 0;
    await assert.rejects(
      db.transaction(async () => {
        attempts++;
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      }),
      rejectsWith('ServiceUnavailableError', 503),
    );
    assert.ok(attempts > 1 && attempts <= 5, `attempts: ${attempts}`);
  });

  test('other errors are not retried', async () => {
    let attempts = 0;
    await assert.rejects(
      db.transaction(async () => {
        attempts++;
        throw new Error('plain failure');
      }),
      /plain failure/,
    );
    assert.equal(attempts, 1);
  });

  test('iteration reads through a server-side cursor', async () => {
    const cursors = await db.read(async (q) => {
      for await (const _ of q.iterate(stmt('select * from generate_series(1, 1200)'))) {
        return q.all<{ name: string }>(stmt('select name from pg_cursors'));
      }
      return [];
    });
    assert.equal(cursors.length, 1);
    assert.match(cursors[0].name, /^fw_cursor_/);
  });

  test('a connection with an abandoned cursor never goes back to the pool', async () => {
    const single = new PostgresDatabase({ connectionString: url, poolSize: 1 });
    try {
      await single.read(async (q) => {
        const it = q.iterate(stmt('select * from generate_series(1, 10)'))[Symbol.asyncIterator]();
        await it.next(); // never finished nor returned
      });
      // The unnamed portal is the asking statement's own (a read unit's first statement is bound by the extended protocol).
      const [row] = await single.read((q) => q.all<{ open: number }>(stmt("select count(*) as open from pg_cursors where name <> ''")));
      assert.equal(row.open, 0);
    } finally {
      await single.close();
    }
  });

  test('numeric, bigint and temporal values come back in the stored formats', async () => {
    const [row] = await db.read((q) =>
      q.all(
        sql`select 12.5::numeric(21,9) as dec, 9007199254740991::bigint as big, count(*) as cnt,
              '2031-02-28'::date as d, '2031-02-28 10:00:00'::timestamp(6) as ts,
              '2031-02-28 10:00:00.5+00'::timestamptz as tstz, '09:05:00.1'::time(6) as t
            from "tabLock"`.compile(db.dialect.builder),
      ),
    );
    assert.deepEqual(row, {
      dec: 12.5,
      big: 9007199254740991,
      cnt: 2,
      d: '2031-02-28',
      ts: '2031-02-28 10:00:00.000000',
      tstz: '2031-02-28 10:00:00.500000',
      t: '09:05:00.100000',
    });
  });

  test('a statement over the time limit fails with a 503 instead of hanging', async () => {
    const impatient = new PostgresDatabase({ connectionString: url, statementTimeoutMs: 50 });
    try {
      await assert.rejects(
        impatient.read((q) => q.all(stmt('select pg_sleep(2)'))),
        rejectsWith('ServiceUnavailableError', 503),
      );
    } finally {
      await impatient.close();
    }
  });

  test('an unreachable server gives a 503 Database unavailable', async () => {
    const nowhere = new PostgresDatabase({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMs: 2000 });
    try {
      await assert.rejects(
        nowhere.transaction(async () => 1),
        (err: unknown) => {
          rejectsWith('ServiceUnavailableError', 503)(err);
          assert.equal((err as Error).message, 'Database unavailable');
          return true;
        },
      );
    } finally {
      await nowhere.close();
    }
  });

  test('work started after close is refused with a 503', async () => {
    const closing = new PostgresDatabase({ connectionString: url });
    await closing.close();
    await assert.rejects(
      closing.read(async () => 1),
      rejectsWith('ServiceUnavailableError', 503),
    );
  });
});
