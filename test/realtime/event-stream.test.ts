import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { openEventStream, streamOf, type EventStream } from '../helpers/event-stream.js';
import { noteFixture, type NoteFixture } from '../helpers/realtime-fixture.js';
import { listenOnce } from '../helpers/realtime-client.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * GET /api/v2/realtime (docs/realtime.md, "Server-Sent Events"), read with a plain HTTP client as
 * curl -N reads it: the same events and permission rules as Socket.IO, event ids, resume through
 * Last-Event-ID, heartbeats.
 */

for (const dialect of testDialects()) {
  describe(`realtime event stream (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let f: NoteFixture;
    const open: EventStream[] = [];

    const stream = async (query: string, headers: Record<string, string>) => {
      const s = streamOf(await openEventStream(`${base}/api/v2/realtime?${query}`, headers));
      open.push(s);
      return s;
    };
    const q = (doctype: string) => `doctype=${encodeURIComponent(doctype)}`;

    before(async () => {
      t = await startTestSite(dialect);
      f = await noteFixture(t, 'SSE Note', 'sse.test');
      base = await listenOnce(t);
    });
    after(async () => {
      for (const s of open) s.close();
      await t.close();
    });

    test('a stream answers text/event-stream, says which subscriptions it holds, and carries list_update with ids', async () => {
      const s = await stream(`${q(f.doctype)}&${q('Deleted Document')}`, { authorization: f.bob.auth });
      assert.match(String(s.response.headers['content-type']), /^text\/event-stream/);
      assert.equal(s.response.headers['x-accel-buffering'], 'no');
      const ready = await s.next('ready');
      assert.deepEqual(ready.data, {
        user: f.bob.name,
        rooms: [`user:${f.bob.name}`, 'website', 'all', `doctype:${f.doctype}`],
        refused: ['doctype:Deleted Document'],
      });
      const doc = await f.insertAs(f.bob, { title: 'streamed' });
      const event = await s.next('list_update', (d) => d.name === doc.name);
      assert.deepEqual(event.data, { doctype: f.doctype, name: doc.name, user: f.bob.name, action: 'insert' });
      assert.ok(event.id && event.id.length > 0);
    });

    test('doc=<DocType>/<name> follows one document', async () => {
      const doc = await f.insertAs(f.bob, { title: 'followed' });
      const s = await stream(`doc=${encodeURIComponent(`${f.doctype}/${doc.name}`)}`, { authorization: f.bob.auth });
      await s.next('ready');
      const res = await t.request({ method: 'PUT', url: `/api/resource/${encodeURIComponent(f.doctype)}/${doc.name}`, body: { title: 'changed' } });
      assert.equal(res.statusCode, 200, res.body);
      // On PostgreSQL the insert's own event travels through NOTIFY and may reach the stream after it subscribed.
      const update = await s.next('doc_update', (d) => d.action === 'update');
      assert.deepEqual(update.data, { doctype: f.doctype, name: doc.name, modified: res.json().data.modified, action: 'update' });
    });

    test('rows hidden from the user are not streamed to them', async () => {
      const s = await stream(q(f.doctype), { authorization: f.alice.auth });
      await s.next('ready');
      const hidden = await f.insertAs(f.bob, { title: 'hidden from alice' });
      const own = await f.insertAs(f.alice, { title: 'her own' });
      assert.equal((await s.next('list_update')).data.name, own.name);
      assert.ok(!JSON.stringify(s.events).includes(String(hidden.name)));
    });

    test('Last-Event-ID replays what was missed, and only that; an unknown id asks for a resync', async () => {
      const first = await stream(q(f.doctype), { authorization: f.bob.auth });
      await first.next('ready');
      const seen = await f.insertAs(f.bob, { title: 'seen' });
      const lastId = (await first.next('list_update', (d) => d.name === seen.name)).id as string;
      first.close();
      const missed1 = await f.insertAs(f.bob, { title: 'missed 1' });
      const missed2 = await f.insertAs(f.bob, { title: 'missed 2' });
      const resumed = await stream(q(f.doctype), { authorization: f.bob.auth, 'last-event-id': lastId });
      await resumed.next('list_update', (d) => d.name === missed2.name);
      const replayed = resumed.events.filter((e) => e.event === 'list_update').map((e) => e.data.name);
      assert.deepEqual(replayed, [missed1.name, missed2.name]);

      const lost = await stream(q(f.doctype), { authorization: f.bob.auth, 'last-event-id': 'no-such-id' });
      assert.deepEqual((await lost.next('resync')).data, { reason: 'Last-Event-ID is not among the recent events' });
    });

    test('bad credentials, malformed subscriptions and Guest', async () => {
      const refused = await openEventStream(`${base}/api/v2/realtime?${q(f.doctype)}`, { authorization: 'token nobody:wrong' });
      assert.ok(!('events' in refused));
      assert.equal(refused.status, 401);
      assert.equal(refused.body.errors[0].type, 'AuthenticationError');
      const malformed = await openEventStream(`${base}/api/v2/realtime?doc=no-slash`, { authorization: f.bob.auth });
      assert.ok(!('events' in malformed));
      assert.equal(malformed.status, 417);

      const guest = await stream(q(f.doctype), {});
      assert.deepEqual((await guest.next('ready')).data, { user: 'Guest', rooms: ['website'], refused: [`doctype:${f.doctype}`] });
    });

    test('an idle stream gets heartbeats', async () => {
      let fast: ReopenedSite | undefined;
      try {
        fast = await reopenWithConfig(t, { realtime_heartbeat_seconds: 1 });
        await fast.app.listen({ host: '127.0.0.1', port: 0 });
        const address = fast.app.server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        const s = streamOf(await openEventStream(`http://127.0.0.1:${port}/api/v2/realtime`, { authorization: f.bob.auth }));
        open.push(s);
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no heartbeat')), 10_000);
          const check = setInterval(() => {
            if (!s.comments.includes('heartbeat')) return;
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }, 50);
        });
        s.close();
      } finally {
        await fast?.close();
      }
    });
  });
}
