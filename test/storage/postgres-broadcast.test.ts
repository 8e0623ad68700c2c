import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { BroadcastChannel } from '../../src/storage/database.js';
import { PostgresDatabase } from '../../src/storage/postgres/postgres-database.js';
import { testDialects, type DialectCase } from '../helpers/dialects.js';

// The PostgreSQL broadcast channel (docs/realtime.md "Across processes"): each message is one row
// and one NOTIFY, written as a transaction of its own in one round trip.
const postgres: DialectCase | undefined = testDialects().find((d) => d.name === 'postgres');

/** Resolves once `received` holds `count` messages (or fails after two seconds). */
async function waitFor(received: readonly string[], count: number): Promise<void> {
  const deadline = Date.now() + 2000;
  while (received.length < count) {
    if (Date.now() > deadline) assert.fail(`expected ${count} messages, got ${received.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('PostgreSQL broadcast channel', { skip: postgres ? false : 'PostgreSQL is not among the test dialects' }, () => {
  let url: string;
  let dropDatabase: () => Promise<void>;
  let sender: PostgresDatabase;
  let listener: PostgresDatabase;
  let channels: BroadcastChannel[];
  const sent: string[] = [];
  const heard: string[] = [];
  let admin: pg.Client;

  before(async () => {
    ({ url, drop: dropDatabase } = await postgres!.createUrl());
    // Two databases stand for two processes serving one site.
    sender = new PostgresDatabase({ connectionString: url, poolSize: 2 });
    listener = new PostgresDatabase({ connectionString: url, poolSize: 2 });
    channels = [sender.broadcast(), listener.broadcast()];
    await channels[0].open({ message: (_id, payload) => sent.push(payload), gap: () => undefined });
    await channels[1].open({ message: (_id, payload) => heard.push(payload), gap: () => undefined });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    for (const channel of channels) await channel.close();
    await sender.close();
    await listener.close();
    await admin.end();
    await dropDatabase();
  });

  test('delivers every message to every process in the order sent, big ones read back from the table', async () => {
    const big = `["${'x'.repeat(9000)}"]`;
    const messages = ['["one"]', big, '["three"]'];
    for (const message of messages) await channels[0].send(message);
    await waitFor(heard, 3);
    await waitFor(sent, 3);
    assert.deepEqual(heard, messages);
    assert.deepEqual(sent, messages);
    const stored = await admin.query('select payload from "__fw_broadcast" order by id');
    assert.deepEqual(
      stored.rows.map((r) => r.payload),
      messages,
    );
  });

  test('a message sent while the listening connections are being reopened goes through the pool and still reaches everyone', async () => {
    sent.length = 0;
    heard.length = 0;
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'fw-listen'`);
    // Until a channel's listener is back, its sends take a pooled connection; the replay brings the row.
    await channels[0].send('["while-down"]');
    await waitFor(heard, 1);
    await waitFor(sent, 1);
    assert.deepEqual(heard, ['["while-down"]']);
    assert.deepEqual(sent, ['["while-down"]']);
    heard.length = 0;
    await channels[0].send('["back"]');
    await waitFor(heard, 1);
    assert.deepEqual(heard, ['["back"]']);
  });

  test('a send that fails leaves no transaction open on the pooled connection, and the next send works', async () => {
    await admin.query('alter table "__fw_broadcast" add constraint short_payload check (length(payload) < 20) not valid');
    try {
      await assert.rejects(channels[0].send(`["${'y'.repeat(30)}"]`));
      const states = await admin.query(`select state from pg_stat_activity where datname = current_database() and application_name = 'fw'`);
      assert.ok(
        states.rows.every((r) => r.state !== 'idle in transaction (aborted)'),
        JSON.stringify(states.rows),
      );
    } finally {
      await admin.query('alter table "__fw_broadcast" drop constraint short_payload');
    }
    heard.length = 0;
    await channels[0].send('["after"]');
    await waitFor(heard, 1);
    assert.deepEqual(heard, ['["after"]']);
    assert.deepEqual(await sender.read((q) => q.all({ sql: 'select 1 as one', parameters: [] })), [{ one: 1 }]);
  });
});
