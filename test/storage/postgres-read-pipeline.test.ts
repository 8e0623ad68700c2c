import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { StaleCheck, type Row } from '../../src/storage/database.js';
import { PostgresConnection, type PgClient } from '../../src/storage/postgres/postgres-connection.js';
import { PostgresDatabase } from '../../src/storage/postgres/postgres-database.js';
import { postgresTypeParsers } from '../../src/storage/postgres/postgres-type-parsers.js';
import { RowDecoders } from '../../src/storage/postgres/row-decoders.js';
import { PreparedStatements } from '../../src/storage/postgres/prepared-statements.js';
import { PipelineError, StatementPipeline } from '../../src/storage/postgres/statement-pipeline.js';
import { testDialects, type DialectCase } from '../helpers/dialects.js';

// A PostgreSQL read unit's first message carries the BEGIN, the metadata check and the first
// statement (docs/architecture.md "Read units").
const postgres: DialectCase | undefined = testDialects().find((d) => d.name === 'postgres');
const stmt = (sql: string, parameters: unknown[] = []) => ({ sql, parameters });

describe('PostgreSQL statement pipelines and deferred checks', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, () => {
  let url: string;
  let dropDatabase: () => Promise<void>;
  let client: pg.Client;
  let db: PostgresDatabase;
  const decoders = new RowDecoders(postgresTypeParsers());

  before(async () => {
    ({ url, drop: dropDatabase } = await postgres!.createUrl());
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('create table "tabPiped" (name text primary key, n int8)');
    db = new PostgresDatabase({ connectionString: url, poolSize: 2 });
  });
  after(async () => {
    await client.end();
    await db.close();
    await dropDatabase();
  });

  test('answers each statement in order, with its values bound and the pool type parsers applied', async () => {
    const results = await StatementPipeline.run(
      client,
      [
        { text: 'select $1::text as a, $2::int8 as b, $3::text as c', values: ['x', 42, null] },
        { text: "select 'two' as t", values: [] },
        { text: 'set local statement_timeout = 1000', values: [] },
      ],
      decoders,
    );
    assert.deepEqual(
      results.map((r) => r.rows),
      [[{ a: 'x', b: 42, c: null }], [{ t: 'two' }], []],
    );
  });

  test('decodes a statement whose columns changed (a DocType change) by its new columns, and counts written rows', async () => {
    const text = 'select * from "tabGrowing" order by name';
    await client.query('create table "tabGrowing" (name text primary key)');
    const [inserted] = await StatementPipeline.run(client, [{ text: `insert into "tabGrowing" values ('a'), ('b')`, values: [] }], decoders);
    assert.equal(inserted.rowCount, 2);
    assert.deepEqual((await StatementPipeline.run(client, [{ text, values: [] }], decoders))[0].rows, [{ name: 'a' }, { name: 'b' }]);
    await client.query('alter table "tabGrowing" add column n int8 default 7');
    assert.deepEqual((await StatementPipeline.run(client, [{ text, values: [] }], decoders))[0].rows, [
      { name: 'a', n: 7 },
      { name: 'b', n: 7 },
    ]);
    // Same name, another type: a decoder kept by name alone would turn '08' into 8.
    await client.query(`alter table "tabGrowing" drop column n, add column n text default '08'`);
    assert.deepEqual((await StatementPipeline.run(client, [{ text, values: [] }], decoders))[0].rows, [
      { name: 'a', n: '08' },
      { name: 'b', n: '08' },
    ]);
  });

  test('stops at the first error, reporting what completed, and nothing of the failed pipeline stays', async () => {
    const failed = await StatementPipeline.run(
      client,
      [
        { text: `insert into "tabPiped" values ('before', 1)`, values: [] },
        { text: 'select 1 / $1::int as boom', values: [0] },
        { text: `insert into "tabPiped" values ('after', 2)`, values: [] },
      ],
      decoders,
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failed instanceof PipelineError);
    assert.match(failed.failure.message, /division by zero/);
    assert.equal(failed.completed.length, 1);
    // The messages up to the Sync were one implicit transaction: the insert before the error went too.
    const { rows } = await client.query('select count(*)::int as n from "tabPiped"');
    assert.equal(rows[0].n, 0);
  });

  test('with prepared statements, a text is parsed once per connection under a name and then only bound', async () => {
    const prepared = new PreparedStatements();
    const steps = [
      { text: 'select $1::text as a', values: ['x'] },
      { text: 'select $1::int8 + 1 as b', values: [1] },
    ];
    for (let i = 0; i < 3; i++) {
      const results = await StatementPipeline.run(client, steps, decoders, prepared);
      assert.deepEqual(
        results.map((r) => r.rows),
        [[{ a: 'x' }], [{ b: 2 }]],
      );
    }
    const { rows } = await client.query('select statement from pg_prepared_statements order by name');
    assert.deepEqual(
      rows.map((r: { statement: string }) => r.statement),
      steps.map((s) => s.text),
    );
  });

  test('a prepared statement that failed is parsed again under a new name, and past 100 the oldest are closed', async () => {
    const prepared = new PreparedStatements();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const divide = { text: 'select 1 / $1::int as q', values: [0] };
      await assert.rejects(StatementPipeline.run(other, [divide], decoders, prepared), PipelineError);
      const [again] = await StatementPipeline.run(other, [{ ...divide, values: [1] }], decoders, prepared);
      assert.deepEqual(again.rows, [{ q: 1 }]);
      for (let i = 0; i < 105; i++) await StatementPipeline.run(other, [{ text: `select ${i} as n`, values: [] }], decoders, prepared);
      await StatementPipeline.run(other, [{ text: 'select 1 as last', values: [] }], decoders, prepared);
      const { rows } = await other.query('select count(*)::int as n from pg_prepared_statements');
      assert.ok(rows[0].n <= 100, `${rows[0].n} statements kept`);
    } finally {
      await other.end();
    }
  });

  test('a read unit whose prepared statement changed columns (a DocType change) is read again with the new ones', async () => {
    const single = new PostgresDatabase({ connectionString: url, poolSize: 1 });
    try {
      await client.query(`create table "tabReshaped" (name text primary key); insert into "tabReshaped" values ('a')`);
      const read = () =>
        single.read((q) => {
          q.deferCheck?.(stmt("select 'v' as value"), () => true);
          return q.all(stmt('select * from "tabReshaped" where name = $1', ['a']));
        });
      for (let i = 0; i < 3; i++) assert.deepEqual(await read(), [{ name: 'a' }]);
      await client.query(`alter table "tabReshaped" add column n int8 default 7`);
      assert.deepEqual(await read(), [{ name: 'a', n: 7 }]);
      await client.query(`alter table "tabReshaped" drop column n, add column n text default '08'`);
      assert.deepEqual(await read(), [{ name: 'a', n: '08' }]);
    } finally {
      await single.close();
    }
  });

  test('with prepared statements off, nothing stays prepared on the server', async () => {
    const unprepared = new PostgresDatabase({ connectionString: url, poolSize: 1, preparedStatements: false });
    try {
      const rows = await unprepared.read(async (q) => {
        await q.all(stmt('select $1::text as v', ['a']));
        return q.all(stmt('select count(*)::int as n from pg_prepared_statements'));
      });
      assert.deepEqual(rows, [{ n: 0 }]);
    } finally {
      await unprepared.close();
    }
  });

  test('a deferred check found current lets the unit read, in the snapshot it began', async () => {
    let judged: Row[] | undefined;
    const rows = await db.read(async (q) => {
      const check = q.deferCheck?.(stmt("select 'v1' as value"), (r) => ((judged = r), true));
      assert.ok(check, 'a PostgreSQL read unit defers its check');
      const first = await q.all(stmt('select $1::text as v', ['a']));
      assert.deepEqual(judged, [{ value: 'v1' }]);
      assert.equal(await check.settle(), true);
      const snapshot = await q.all<{ iso: string }>(stmt('show transaction_isolation'));
      return [...first, ...snapshot];
    });
    assert.deepEqual(rows, [{ v: 'a' }, { transaction_isolation: 'repeatable read' }]);
  });

  test('a deferred check found stale turns the first and every later statement into StaleCheck', async () => {
    await db.read(async (q) => {
      const check = q.deferCheck?.(stmt("select 'v2' as value"), () => false);
      await assert.rejects(q.all(stmt('select $1::text as v', ['a'])), StaleCheck);
      await assert.rejects(q.all(stmt('select 1 as one')), StaleCheck);
      assert.equal(await check?.settle(), false);
    });
    // The connection goes back to the pool fit for the next unit.
    assert.deepEqual(await db.read((q) => q.all(stmt('select 1 as one'))), [{ one: 1 }]);
  });

  test('a statement that fails after a stale check reports the stale check, after a current one its own error', async () => {
    await db.read(async (q) => {
      q.deferCheck?.(stmt("select 'v' as value"), () => false);
      await assert.rejects(q.all(stmt('select * from "tabMissing"')), StaleCheck);
    });
    await db.read(async (q) => {
      q.deferCheck?.(stmt("select 'v' as value"), () => true);
      await assert.rejects(q.all(stmt('select * from "tabMissing"')), (err: unknown) => !(err instanceof StaleCheck) && /tabMissing/.test(String(err)));
    });
  });

  test('a unit that ran no statement runs its check when settled', async () => {
    let judged = 0;
    const verdict = await db.read(async (q) => {
      const check = q.deferCheck?.(stmt("select 'v' as value"), (rows) => (judged++, rows[0]?.value === 'v'));
      return check?.settle();
    });
    assert.equal(verdict, true);
    assert.equal(judged, 1);
  });

  test('a check is deferred only before the unit begins', async () => {
    await db.read(async (q) => {
      await q.all(stmt('select 1 as one'));
      assert.equal(
        q.deferCheck?.(stmt('select 1 as value'), () => true),
        undefined,
      );
    });
  });

  test('a write transaction defers its check too, and a stale one keeps nothing the unit wrote', async () => {
    await assert.rejects(
      db.transaction(async (q) => {
        assert.ok(q.deferCheck?.(stmt("select 'v' as value"), () => false));
        await q.run(stmt(`insert into "tabPiped" values ('stale', 1)`));
      }),
      StaleCheck,
    );
    await db.transaction(async (q) => {
      q.deferCheck?.(stmt("select 'v' as value"), () => true);
      await q.run(stmt(`insert into "tabPiped" values ('current', 1)`));
    });
    const { rows } = await client.query('select name from "tabPiped" order by name');
    assert.deepEqual(rows, [{ name: 'current' }]);
  });
});

/** A client that answers every pipeline with one row per statement, its text, and records what it was sent. */
function recordingClient(): { client: PgClient; sent: string[][] } {
  const sent: string[][] = [];
  const query = (config: unknown) => {
    const pipeline = config as StatementPipeline & { submit(connection: unknown): void };
    const texts: string[] = [];
    pipeline.submit({ stream: {}, parse: (p: { text: string }) => texts.push(p.text), bind() {}, describe() {}, execute() {}, sync() {} });
    sent.push(texts);
    for (const text of texts) {
      pipeline.handleRowDescription({ fields: [{ name: 'value', dataTypeID: 25 }] });
      pipeline.handleDataRow({ fields: [text] });
      pipeline.handleCommandComplete({ text: 'SELECT 1' });
    }
    pipeline.handleReadyForQuery();
  };
  return { client: { query, release() {} } as unknown as PgClient, sent };
}

describe('a PostgreSQL unit of work begins in one message', () => {
  test('the previous COMMIT, the BEGIN, the deferred check and the first statement travel together', async () => {
    const { client, sent } = recordingClient();
    const conn = new PostgresConnection(client, 'read', { commitFirst: true, decoders: new RowDecoders(postgresTypeParsers()) });
    conn.deferCheck(stmt('select version'), (rows) => rows[0]?.value === 'select version');
    const rows = await conn.all(stmt('select doc where name = $1', ['x']));
    assert.deepEqual(sent, [['COMMIT', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'select version', 'select doc where name = $1']]);
    assert.deepEqual(rows, [{ value: 'select doc where name = $1' }]);
  });

  test('a write transaction: its BEGIN, the deferred check and the first statement travel together', async () => {
    const { client, sent } = recordingClient();
    const conn = new PostgresConnection(client, 'transaction', { commitFirst: false, decoders: new RowDecoders(postgresTypeParsers()) });
    conn.deferCheck(stmt('select version'), () => true);
    await conn.run(stmt('insert into doc values ($1)', ['x']));
    assert.deepEqual(sent, [['BEGIN READ WRITE', 'select version', 'insert into doc values ($1)']]);
  });
});
