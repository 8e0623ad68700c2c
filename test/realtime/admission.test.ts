import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { testDialects } from '../helpers/dialects.js';
import { openEventStream, streamOf, type EventStream } from '../helpers/event-stream.js';
import { httpCall } from '../helpers/http-call.js';
import { USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { noteFixture, type NoteFixture } from '../helpers/realtime-fixture.js';
import { connectSocket, listenOnce, refusalOf, type RecordingSocket } from '../helpers/realtime-client.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { sessionFor } from '../helpers/user-sessions.js';

/*
 * Attacks on who may open a realtime connection at all (docs/realtime.md, "Connecting", "Limits",
 * "Maintenance"; docs/security.md, "Realtime"): a page of another site riding the visitor's cookie
 * under allow_cors "*", namespaces that fail admission crowding out the real one, one client using
 * up every Guest connection, and connections that outlive the start of maintenance.
 */

const EVIL = 'https://evil.example';

/** Waits until `check` holds, looking again every 20 ms: for state the server notices on its own (a changed file). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Listens on an ephemeral loopback port and answers the base URL. */
async function listen(view: ReopenedSite): Promise<string> {
  await view.app.listen({ host: '127.0.0.1', port: 0 });
  const address = view.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** A raw Engine.IO long-polling handshake: status, CORS headers and body. */
function pollingHandshake(base: string, headers: Record<string, string>) {
  return httpCall(base, { method: 'GET', path: '/socket.io/?EIO=4&transport=polling', headers });
}

for (const dialect of testDialects()) {
  describe(`realtime admission (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let f: NoteFixture;
    let sid: string;
    const views: ReopenedSite[] = [];
    const sockets: RecordingSocket[] = [];
    const streams: EventStream[] = [];

    const connect = async (options: Parameters<typeof connectSocket>[1], at = base) => {
      const s = await connectSocket(at, options);
      sockets.push(s);
      return s;
    };
    const stream = async (url: string, headers: Record<string, string>, localAddress?: string) => {
      const s = streamOf(await openEventStream(url, headers, { localAddress }));
      streams.push(s);
      return s;
    };
    const as = (user: ActingUser) => ({ headers: { authorization: user.auth } });
    const reopen = async (config: Record<string, unknown>) => {
      const view = await reopenWithConfig(t, config);
      views.push(view);
      return { view, url: await listen(view) };
    };

    before(async () => {
      t = await startTestSite(dialect);
      f = await noteFixture(t, 'AD Note', 'ad.test');
      sid = await sessionFor(t.app, f.bob.name, USER_PASSWORD);
      base = await listenOnce(t);
    });
    after(async () => {
      for (const s of sockets) s.close();
      for (const s of streams) s.close();
      for (const v of views) await v.close();
      await t.close();
    });

    test('with allow_cors "*", another origin’s handshake is Guest whatever cookie it carries, and polling never allows credentials', async () => {
      const { view, url } = await reopen({ allow_cors: '*' });
      const cookie = `sid=${sid}`;
      for (const transports of [['websocket'], ['polling']] as const) {
        const s = await connect({ headers: { cookie, origin: EVIL }, transports: [...transports] }, url);
        assert.deepEqual(await s.ask('doctype_subscribe', f.doctype), { ok: false, error: 'not permitted' });
        view.site.realtime.publish('msgprint', 'for bob only', { user: f.bob.name });
        view.site.realtime.publish('notice', 'for the website', { room: 'website' });
        await s.next('notice');
        assert.deepEqual(
          s.received.map((r) => r.event),
          ['notice'],
          `${transports[0]}: Guest, not bob`,
        );
      }
      const cross = await pollingHandshake(url, { cookie, origin: EVIL });
      assert.equal(cross.status, 200, cross.text);
      assert.equal(cross.headers['access-control-allow-origin'], EVIL);
      assert.equal(cross.headers['access-control-allow-credentials'], undefined);
      // The event stream: the same page is Guest too.
      const guestStream = await stream(`${url}/api/v2/realtime?doctype=${encodeURIComponent(f.doctype)}`, { cookie, origin: EVIL });
      assert.deepEqual((await guestStream.next('ready')).data, { user: 'Guest', rooms: ['website'], refused: [`doctype:${f.doctype}`] });

      // The site's own pages keep their session; a token is not ambient, so it works from anywhere.
      const own = await pollingHandshake(url, { cookie, origin: 'http://127.0.0.1:8080' });
      assert.equal(own.headers['access-control-allow-credentials'], 'true');
      const ownPage = await connect({ headers: { cookie, origin: 'http://127.0.0.1:8080' } }, url);
      assert.deepEqual(await ownPage.ask('doctype_subscribe', f.doctype), { ok: true });
      const byToken = await connect({ headers: { origin: EVIL }, auth: { token: f.bob.auth.slice('token '.length) } }, url);
      assert.deepEqual(await byToken.ask('doctype_subscribe', f.doctype), { ok: true });
    });

    test('without allow_cors, polling from another origin gets no CORS headers and the socket is refused', async () => {
      const cross = await pollingHandshake(base, { cookie: `sid=${sid}`, origin: EVIL });
      assert.equal(cross.headers['access-control-allow-origin'], undefined);
      assert.equal(cross.headers['access-control-allow-credentials'], undefined);
      assert.equal(await refusalOf(base, { headers: { cookie: `sid=${sid}`, origin: EVIL } }), 'Invalid origin');
    });

    test('namespaces that fail admission hold no slot: the real host name still connects after many', async () => {
      for (let i = 0; i < 40; i++) {
        assert.equal(await refusalOf(base, { namespace: `/n${i}.example` }), 'Invalid namespace');
      }
      // Host names that were admitted once free their namespace when their last socket goes.
      for (let i = 0; i < 40; i++) {
        const host = `h${i}.example`;
        assert.equal(await refusalOf(base, { namespace: `/${host}`, headers: { host } }), 'connected');
      }
      assert.equal(await refusalOf(base, { namespace: '/fresh.example', headers: { host: 'fresh.example' } }), 'connected');
      assert.equal(await refusalOf(base, as(f.bob)), 'connected');
    });

    test('Guest connections are limited per client address, not in one pool for all', async () => {
      const { url } = await reopen({ realtime_max_sockets_per_user: 2 });
      const streamUrl = `${url}/api/v2/realtime`;
      await connect({ localAddress: '127.0.0.1' }, url);
      await stream(streamUrl, {}, '127.0.0.1');
      assert.equal(await refusalOf(url, { localAddress: '127.0.0.1' }), 'Too many connections from this address');
      const refused = await openEventStream(streamUrl, {}, { localAddress: '127.0.0.1' });
      assert.equal('status' in refused ? refused.status : 200, 429);
      // Another client is not shut out, nor is a user connecting from the same address.
      assert.equal(await refusalOf(url, { localAddress: '127.0.0.2' }), 'connected');
      await (await stream(streamUrl, {}, '127.0.0.3')).next('ready');
      assert.equal(await refusalOf(url, { ...as(f.bob), localAddress: '127.0.0.1' }), 'connected');
    });

    // Last: it puts the test site's own config file into maintenance.
    test('maintenance refuses new sockets and streams and ends those open; with reads allowed they go on', async () => {
      const file = t.site.paths.config;
      const original = await readFile(file, 'utf8');
      const setConfig = async (extra: Record<string, unknown>) => {
        // Replaced through a rename, as `fw maintenance` does.
        await writeFile(`${file}.tmp`, JSON.stringify({ ...JSON.parse(original), ...extra }), { mode: 0o600 });
        await rename(`${file}.tmp`, file);
      };
      const streamUrl = `${base}/api/v2/realtime?doctype=${encodeURIComponent(f.doctype)}`;
      try {
        const socket = await connect(as(f.bob));
        const guest = await connect({});
        const events = await stream(streamUrl, { authorization: f.bob.auth });
        await events.next('ready');

        await setConfig({ maintenance_mode: true, allow_reads_during_maintenance: true });
        await until(
          async () => (await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'x' } })).statusCode === 503,
          'writes refused',
        );
        assert.equal(await refusalOf(base, as(f.bob)), 'connected');
        assert.equal(socket.socket.connected, true);

        await setConfig({ maintenance_mode: true });
        for (const s of [socket, guest]) {
          await s.disconnected();
          assert.deepEqual(s.received.at(-1), { event: 'fw_disconnect', args: [{ reason: 'site in maintenance' }] });
        }
        await events.ended();
        assert.deepEqual(events.events.at(-1)?.data, { reason: 'site in maintenance' });

        assert.notEqual(await refusalOf(base, as(f.bob)), 'connected');
        assert.notEqual(await refusalOf(base, { transports: ['polling'] }), 'connected');
        const handshake = await pollingHandshake(base, { authorization: f.bob.auth });
        assert.equal(handshake.status, 403);
        assert.deepEqual(handshake.json(), { code: 4, message: 'Site in maintenance' });
        const refused = await openEventStream(streamUrl, { authorization: f.bob.auth });
        assert.equal('status' in refused ? refused.status : 200, 503);
        assert.equal('status' in refused ? refused.body.errors[0].type : '', 'SessionStopped');
      } finally {
        await setConfig({});
      }
      await until(async () => (await refusalOf(base, as(f.bob))) === 'connected', 'connections served again');
    });
  });
}
