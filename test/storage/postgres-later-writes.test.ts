import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresConnection, type PgClient } from '../../src/storage/postgres/postgres-connection.js';
import { PostgresDatabase } from '../../src/storage/postgres/postgres-database.js';
import { postgresTypeParsers } from '../../src/storage/postgres/postgres-type-parsers.js';
import { RowDecoders } from '../../src/storage/postgres/row-decoders.js';
import { testDialects, type DialectCase } from '../helpers/dialects.js';

// Writes queued with Queryable.runLater travel with the unit's next message, at the latest its
// COMMIT (docs/architecture.md "Writes that travel with the COMMIT").
const postgres: DialectCase | undefined = testDialects().find((d) => d.name === 'postgres');
const stmt = (sql: string, parameters: unknown[] = []) => ({ sql, parameters });

class Described extends Error {
  constructor(readonly original: unknown) {
    super('described');
  }
}
const describeAs = (err: unknown) => new Described(err);

describe('PostgreSQL writes queued until the next message', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, () => {
  let url: string;
  let dropDatabase: () => Promise<void>;
  let client: pg.Client;
  let db: PostgresDatabase;

  before(async () => {
    ({ url, drop: dropDatabase } = await postgres!.createUrl());
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('create table "tabLater" (name text primary key, n int8)');
    db = new PostgresDatabase({ connectionString: url, poolSize: 1 });
  });
  after(async () => {
    await client.end();
    await db.close();
    await dropDatabase();
  });

  const names = async () => (await client.query('select name from "tabLater" order by name')).rows.map((r: { name: string }) => r.name);

  test('a queued write after the first statement costs no message of its own: it travels with the COMMIT', async () => {
    let messages = 0;
    const counting: PgClient = {
      query: ((config: unknown) => {
        messages++;
        return (client.query as (c: unknown) => unknown)(config);
      }) as PgClient['query'],
      release: () => {},
    };
    const conn = new PostgresConnection(counting, 'transaction', { commitFirst: false, decoders: new RowDecoders(postgresTypeParsers()) });
    await conn.all(stmt('select 1 as one'));
    conn.runLater?.(stmt(`insert into "tabLater" values ('counted', 1)`), describeAs);
    assert.equal(messages, 1, 'queued, not sent');
    await conn.finish('COMMIT');
    assert.equal(messages, 2, 'the write and the COMMIT in one message');
    assert.deepEqual(await names(), ['counted']);
    await client.query('delete from "tabLater"');
  });

  test('queued writes are stored by the commit, and a later statement of the unit sees them', async () => {
    const seen = await db.transaction(async (q) => {
      assert.ok(q.runLater, 'a write transaction queues writes');
      q.runLater(stmt(`insert into "tabLater" values ($1, $2)`, ['a', 1]), describeAs);
      q.runLater(stmt(`insert into "tabLater" values ($1, $2)`, ['b', 2]), describeAs);
      return q.all<{ name: string }>(stmt('select name from "tabLater" order by name'));
    });
    assert.deepEqual(
      seen.map((r) => r.name),
      ['a', 'b'],
    );
    assert.deepEqual(await names(), ['a', 'b']);
  });

  test("a queued write that fails at the COMMIT throws its describer's error and rolls the whole unit back", async () => {
    await assert.rejects(
      db.transaction(async (q) => {
        await q.run(stmt(`insert into "tabLater" values ('c', 3)`));
        q.runLater?.(stmt(`insert into "tabLater" values ('a', 9)`), describeAs);
      }),
      (err: unknown) => err instanceof Described && /duplicate|already exists/i.test(String((err.original as Error).message)),
    );
    assert.deepEqual(await names(), ['a', 'b'], 'nothing of the failed unit stays');
    // The connection went back to the pool usable.
    await db.transaction(async (q) => q.run(stmt(`insert into "tabLater" values ('d', 4)`)));
    assert.deepEqual(await names(), ['a', 'b', 'd']);
  });

  test('a queued write that fails is reported by the statement that carried it, which does not run', async () => {
    let carried: unknown;
    await assert.rejects(
      db.transaction(async (q) => {
        q.runLater?.(stmt(`insert into "tabLater" values ('e', 5)`), describeAs);
        q.runLater?.(stmt(`insert into "tabLater" values ('b', 5)`), describeAs);
        try {
          await q.run(stmt(`insert into "tabLater" values ('f', 6)`));
        } catch (err) {
          carried = err;
        }
        throw carried;
      }),
      Described,
    );
    assert.ok(carried instanceof Described);
    assert.deepEqual(await names(), ['a', 'b', 'd']);
  });

  test('a rolled-back unit drops what it queued, and a read unit queues nothing', async () => {
    await assert.rejects(
      db.transaction(async (q) => {
        await q.run(stmt(`insert into "tabLater" values ('g', 7)`));
        q.runLater?.(stmt(`insert into "tabLater" values ('h', 8)`), describeAs);
        throw new Error('refused by the work');
      }),
      /refused by the work/,
    );
    assert.deepEqual(await names(), ['a', 'b', 'd']);
    await db.read(async (q) => assert.equal(q.runLater, undefined));
  });
});
