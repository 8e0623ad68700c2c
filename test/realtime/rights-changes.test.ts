import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, resourceUrl, type Json } from '../helpers/document-api.js';
import { runBin } from '../helpers/fw-bin.js';
import { openEventStream, streamOf, type EventStream } from '../helpers/event-stream.js';
import { createRole, createUser, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { noteFixture, type NoteFixture } from '../helpers/realtime-fixture.js';
import { connectSocket, listenOnce, refusalOf, type RecordingSocket } from '../helpers/realtime-client.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { sessionFor } from '../helpers/user-sessions.js';

/*
 * Attacks on realtime after a change of rights (docs/realtime.md, "Privacy"; docs/security.md,
 * "Realtime"): connections opened with an API secret outlive its replacement, a reader whose
 * share, role, User Permission or permission row was taken away keeps hearing doc_update and
 * doc_viewers. Each checks that the connection ends or the event never arrives.
 */

for (const dialect of testDialects()) {
  describe(`realtime follows changes of rights (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let f: NoteFixture;
    const sockets: RecordingSocket[] = [];
    const streams: EventStream[] = [];
    let view: ReopenedSite | undefined;

    const connect = async (options: Parameters<typeof connectSocket>[1]) => {
      const s = await connectSocket(base, options);
      sockets.push(s);
      return s;
    };
    const stream = async (query: string, headers: Record<string, string>) => {
      const s = streamOf(await openEventStream(`${base}/api/v2/realtime?${query}`, headers));
      streams.push(s);
      return s;
    };
    const as = (user: ActingUser) => ({ headers: { authorization: user.auth } });
    const admin = () => connect({ headers: { authorization: t.adminAuth } });
    const save = async (name: string, title: string): Promise<Json> =>
      dataOf(await t.request({ method: 'PUT', url: resourceUrl(f.doctype, name), body: { title } }));
    /**
     * Publishes a marker to `user`'s room and waits until `s` has it: a socket gets its events in
     * order, so whatever was sent to it before the marker has arrived by then.
     */
    let markers = 0;
    const drained = async (s: RecordingSocket, user: string) => {
      const mark = `marker ${++markers}`;
      t.site.realtime.publish('msgprint', mark, { user });
      await s.next('msgprint', (m) => m === mark);
    };
    const heard = (s: RecordingSocket, event: string, name: string) =>
      s.received.filter((r) => r.event === event && JSON.stringify(r.args).includes(name)).length;

    before(async () => {
      t = await startTestSite(dialect);
      f = await noteFixture(t, 'RC Note', 'rc.test');
      base = await listenOnce(t);
    });
    after(async () => {
      for (const s of sockets) s.close();
      for (const s of streams) s.close();
      await view?.close();
      await t.close();
    });

    test('generate_keys ends the sockets and streams opened with the replaced secret, not those of a session', async () => {
      const dave = await createUser(t, 'dave@rc.test', { roles: [`${f.doctype} Reader`] });
      const byHeader = await connect(as(dave));
      const byAuth = await connect({ auth: { token: dave.auth.slice('token '.length) } });
      const byStream = await stream(`doctype=${encodeURIComponent(f.doctype)}`, { authorization: dave.auth });
      await byStream.next('ready');
      const sid = await sessionFor(t.app, dave.name, USER_PASSWORD);
      const bySession = await connect({ headers: { cookie: `sid=${sid}` } });

      const res = await t.request({ method: 'POST', url: '/api/method/fw.core.doctype.user.user.generate_keys', body: { user: dave.name } });
      assert.equal(res.statusCode, 200, res.body);
      await byHeader.disconnected();
      await byAuth.disconnected();
      await byStream.ended();
      assert.deepEqual(byStream.events.at(-1), { id: undefined, event: 'fw_disconnect', data: { reason: 'credentials revoked' } });
      assert.deepEqual(byHeader.received.at(-1), { event: 'fw_disconnect', args: [{ reason: 'credentials revoked' }] });
      // Nothing reached them after the revocation, and the old secret opens nothing new.
      const note = await f.insertAs(f.bob, { title: 'after the new secret' });
      await drained(bySession, dave.name);
      for (const s of [byHeader, byAuth]) assert.equal(heard(s, 'list_update', String(note.name)), 0);
      assert.ok(!JSON.stringify(byStream.events).includes(String(note.name)));
      assert.equal(await refusalOf(base, as(dave)), 'Invalid credentials');
      const refused = await openEventStream(`${base}/api/v2/realtime`, { authorization: dave.auth });
      assert.equal('status' in refused ? refused.status : 200, 401);
      // The session's socket is untouched, and the new secret connects.
      assert.equal(bySession.socket.connected, true);
      const fresh = res.json().message as { api_key: string; api_secret: string };
      assert.equal(await refusalOf(base, { headers: { authorization: `token ${fresh.api_key}:${fresh.api_secret}` } }), 'connected');
    });

    test('clearing a user’s api_key ends the sockets and streams opened with it', async () => {
      const ian = await createUser(t, 'ian@rc.test', { roles: [`${f.doctype} Reader`] });
      const s = await connect(as(ian));
      const events = await stream(`doctype=${encodeURIComponent(f.doctype)}`, { authorization: ian.auth });
      await events.next('ready');
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', ian.name), body: { api_key: null } }));
      await s.disconnected();
      await events.ended();
      assert.deepEqual(events.events.at(-1)?.data, { reason: 'credentials revoked' });
      assert.equal(await refusalOf(base, as(ian)), 'Invalid credentials');
    });

    test('disabling a user ends their token streams as well as their sockets', async () => {
      const gina = await createUser(t, 'gina@rc.test', { roles: [`${f.doctype} Reader`] });
      const s = await stream(`doctype=${encodeURIComponent(f.doctype)}`, { authorization: gina.auth });
      await s.next('ready');
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', gina.name), body: { enabled: 0 } }));
      await s.ended();
      assert.equal(s.events.at(-1)?.event, 'fw_disconnect');
    });

    test('`fw user keys` and `fw user disable` run on the server end the connections at the next look', async () => {
      // Commands on the server write the database but cannot reach the bus: clients are checked every heartbeat.
      view = await reopenWithConfig(t, { realtime_heartbeat_seconds: 1 });
      await view.app.listen({ host: '127.0.0.1', port: 0 });
      const address = view.app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const jo = await createUser(t, 'jo@rc.test', { roles: [`${f.doctype} Reader`] });
      const kim = await createUser(t, 'kim@rc.test', { roles: [`${f.doctype} Reader`] });
      const byToken = await connectSocket(url, as(jo));
      sockets.push(byToken);
      const byStream = streamOf(await openEventStream(`${url}/api/v2/realtime`, { authorization: jo.auth }));
      streams.push(byStream);
      await byStream.next('ready');
      const kimSid = await sessionFor(t.app, kim.name, USER_PASSWORD);
      const bySession = await connectSocket(url, { headers: { cookie: `sid=${kimSid}` } });
      sockets.push(bySession);

      const keys = await runBin(['user', 'keys', jo.name, '--site', t.site.paths.root]);
      assert.equal(keys.code, 0, keys.stderr);
      await byToken.disconnected();
      assert.deepEqual(byToken.received.at(-1), { event: 'fw_disconnect', args: [{ reason: 'credentials revoked' }] });
      await byStream.ended();
      assert.deepEqual(byStream.events.at(-1)?.data, { reason: 'credentials revoked' });

      const disabled = await runBin(['user', 'disable', kim.name, '--site', t.site.paths.root]);
      assert.equal(disabled.code, 0, disabled.stderr);
      await bySession.disconnected();
      assert.deepEqual(bySession.received.at(-1), { event: 'fw_disconnect', args: [{ reason: 'user disabled' }] });
    });

    test('a removed share stops doc_update and doc_viewers of that document, on sockets and streams', async () => {
      const note = await f.insertAs(f.bob, { title: 'shared with carol' });
      const share = dataOf(
        await t.request({
          method: 'POST',
          url: resourceUrl('DocShare'),
          body: { share_doctype: f.doctype, share_name: note.name, user: f.carol.name, read: 1 },
        }),
      );
      const carol = await connect(as(f.carol));
      assert.deepEqual(await carol.ask('doc_subscribe', f.doctype, note.name), { ok: true });
      assert.deepEqual(await carol.ask('doc_open', f.doctype, note.name), { ok: true });
      const carolStream = await stream(`doc=${encodeURIComponent(`${f.doctype}/${note.name}`)}`, { authorization: f.carol.auth });
      assert.deepEqual((await carolStream.next('ready')).data.refused, []);
      const watcher = await admin();
      assert.deepEqual(await watcher.ask('doc_subscribe', f.doctype, note.name), { ok: true });
      // While shared, carol hears the save.
      const before = await save(String(note.name), 'still shared');
      await carol.next('doc_update', (m) => m.modified === before.modified);
      await carolStream.next('doc_update', (m) => m.modified === before.modified);

      const removed = await t.request({ method: 'DELETE', url: resourceUrl('DocShare', String(share.name)) });
      assert.equal(removed.statusCode, 202, removed.body);
      const after = await save(String(note.name), 'no longer shared');
      await watcher.next('doc_update', (m) => m.modified === after.modified);
      // Someone opens the form: the viewers hear of it, carol neither hears nor is named.
      assert.deepEqual(await watcher.ask('doc_open', f.doctype, note.name), { ok: true });
      const viewers = await watcher.next('doc_viewers', (m) => m.users.includes('Administrator'));
      assert.deepEqual(viewers.users, ['Administrator']);
      await drained(carol, f.carol.name);
      assert.equal(carol.received.filter((r) => r.event === 'doc_update' && r.args[0] && (r.args[0] as Json).modified === after.modified).length, 0);
      assert.equal(carol.received.filter((r) => r.event === 'doc_viewers' && (r.args[0] as Json).users.includes('Administrator')).length, 0);
      // The stream: a marker to carol's room comes after anything the save sent.
      t.site.realtime.publish('msgprint', 'stream marker', { user: f.carol.name });
      await carolStream.next('msgprint', (m) => m === 'stream marker');
      assert.equal(carolStream.events.filter((e) => e.event === 'doc_update' && e.data.modified === after.modified).length, 0);
      // And she cannot follow it again.
      assert.deepEqual(await carol.ask('doc_subscribe', f.doctype, note.name), { ok: false, error: 'not permitted' });
    });

    test('a role taken away stops doc_update and list_update for the user', async () => {
      const erin = await createUser(t, 'erin@rc.test', { roles: [`${f.doctype} Reader`] });
      const note = await f.insertAs(f.bob, { title: 'read by role' });
      const s = await connect(as(erin));
      assert.deepEqual(await s.ask('doc_subscribe', f.doctype, note.name), { ok: true });
      assert.deepEqual(await s.ask('doctype_subscribe', f.doctype), { ok: true });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', erin.name), body: { roles: [] } }));
      const watcher = await admin();
      assert.deepEqual(await watcher.ask('doc_subscribe', f.doctype, note.name), { ok: true });
      const saved = await save(String(note.name), 'role gone');
      await watcher.next('doc_update', (m) => m.modified === saved.modified);
      await drained(s, erin.name);
      assert.equal(heard(s, 'doc_update', saved.modified), 0);
      assert.equal(s.received.filter((r) => r.event === 'list_update').length, 0);
    });

    test('a User Permission added hides the other documents from the user', async () => {
      const fay = await createUser(t, 'fay@rc.test', { roles: [`${f.doctype} Reader`] });
      const kept = await f.insertAs(f.bob, { title: 'permitted' });
      const hidden = await f.insertAs(f.bob, { title: 'soon hidden' });
      const s = await connect(as(fay));
      assert.deepEqual(await s.ask('doc_subscribe', f.doctype, hidden.name), { ok: true });
      assert.deepEqual(await s.ask('doc_subscribe', f.doctype, kept.name), { ok: true });
      dataOf(await t.request({ method: 'POST', url: resourceUrl('User Permission'), body: { user: fay.name, allow: f.doctype, for_value: kept.name } }));
      const hiddenSave = await save(String(hidden.name), 'hidden now');
      const keptSave = await save(String(kept.name), 'still permitted');
      // The permitted document's event comes after the hidden one's: by then the other was judged.
      await s.next('doc_update', (m) => m.modified === keptSave.modified);
      assert.equal(heard(s, 'doc_update', hiddenSave.modified), 0);
    });

    test('permission rows changed on the DocType stop doc_update for those who lost read', async () => {
      const doctype = 'RC Perm Note';
      const role = 'RC Perm Reader';
      await createRole(t, role);
      await createDocType(t, {
        name: doctype,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 }],
        permissions: [
          { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
          { role, read: 1 },
        ],
      });
      const hal = await createUser(t, 'hal@rc.test', { roles: [role] });
      const doc = dataOf(await t.request({ method: 'POST', url: resourceUrl(doctype), body: { title: 'perm rows' } }));
      const s = await connect(as(hal));
      assert.deepEqual(await s.ask('doc_subscribe', doctype, doc.name), { ok: true });
      const stored = dataOf(await t.request({ method: 'GET', url: resourceUrl('DocType', doctype) }));
      const permissions = (stored.permissions as Json[]).filter((p) => p.role !== role);
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('DocType', doctype), body: { permissions } }));
      const watcher = await admin();
      assert.deepEqual(await watcher.ask('doc_subscribe', doctype, doc.name), { ok: true });
      const saved = dataOf(await t.request({ method: 'PUT', url: resourceUrl(doctype, String(doc.name)), body: { title: 'after the rows changed' } }));
      await watcher.next('doc_update', (m) => m.modified === saved.modified);
      await drained(s, hal.name);
      assert.equal(heard(s, 'doc_update', saved.modified), 0);
      assert.deepEqual(await s.ask('doc_subscribe', doctype, doc.name), { ok: false, error: 'not permitted' });
    });
  });
}
