import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { sendJsonRows } from './json-row-stream.js';

const ENVELOPE = { head: '{"data":[', tail: '],"has_next_page":false}' };

async function* rowsThenFailure(count: number, failAfter?: number): AsyncGenerator<unknown> {
  for (let i = 0; i < count; i++) {
    if (i === failAfter) throw new Error('the cursor broke');
    yield { name: `row-${i}`, text: 'x'.repeat(100), n: i, none: null, list: [i, 'é"\\'] };
  }
}

describe('sendJsonRows', () => {
  let app: FastifyInstance;
  let origin: string;

  before(async () => {
    app = Fastify({ logger: false });
    app.get('/rows/:count', async (req, reply) => {
      const { count } = req.params as { count: string };
      const failAfter = (req.query as { fail?: string }).fail;
      await sendJsonRows(reply, rowsThenFailure(Number(count), failAfter === undefined ? undefined : Number(failAfter)), ENVELOPE);
      return reply;
    });
    app.get('/ping', async () => ({ ok: true }));
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => app.close());

  test('gives exactly the bytes JSON.stringify gives for the whole body, in chunks', async () => {
    for (const count of [0, 1, 3, 2000]) {
      const res = await fetch(`${origin}/rows/${count}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      const rows: unknown[] = [];
      for await (const row of rowsThenFailure(count)) rows.push(row);
      assert.equal(await res.text(), JSON.stringify({ data: rows, has_next_page: false }));
    }
    const large = await fetch(`${origin}/rows/2000`);
    assert.equal(large.headers.get('transfer-encoding'), 'chunked', 'sent as it is produced, not measured first');
    await large.arrayBuffer();
  });

  test('a failure before the first row is an ordinary error response', async () => {
    const res = await fetch(`${origin}/rows/5?fail=0`);
    assert.equal(res.status, 500);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(((await res.json()) as { message: string }).message, 'the cursor broke');
  });

  test('a failure mid-stream cuts the response short and the server carries on', async () => {
    const cut = await fetch(`${origin}/rows/5000?fail=3000`)
      .then(
        async (res) => {
          const text = await res.text();
          return text.endsWith(ENVELOPE.tail) ? 'complete' : 'truncated';
        },
        () => 'truncated',
      )
      .catch(() => 'truncated');
    assert.equal(cut, 'truncated');
    const ping = await fetch(`${origin}/ping`);
    assert.deepEqual(await ping.json(), { ok: true });
  });
});
