import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../src/errors/index.js';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, insertDoc, resourceUrl, type Json } from '../helpers/document-api.js';
import { createRole, createUser, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { connectSocket, listenOnce, refusalOf, type RecordingSocket } from '../helpers/realtime-client.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { sessionFor } from '../helpers/user-sessions.js';

/*
 * Socket.IO as the reference's clients use it (docs/realtime.md): authentication on connect,
 * the site's namespace, subscriptions checked against read permission, doc_update and list_update
 * after commit only, and list events only for readers of the row.
 */

const NOTE = 'RT Note';
const OWNER_ONLY = 'RT Owner Only';
const READ_ALL = 'RT Read All';

for (const dialect of testDialects()) {
  describe(`Socket.IO realtime (${dialect.name})`, () => {
    let t: TestSite;
    let base: string;
    let alice: ActingUser; // reads only her own notes (if_owner)
    let bob: ActingUser; // reads every note
    let carol: ActingUser; // no role on notes
    const open: RecordingSocket[] = [];

    const connect = async (options: Parameters<typeof connectSocket>[1]) => {
      const s = await connectSocket(base, options);
      open.push(s);
      return s;
    };
    const as = (user: ActingUser) => ({ headers: { authorization: user.auth } });
    const insertAs = async (user: ActingUser, body: Json) =>
      dataOf(await t.request({ method: 'POST', url: resourceUrl(NOTE), body, headers: { authorization: user.auth } }));

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, OWNER_ONLY);
      await createRole(t, READ_ALL);
      await createDocType(t, {
        name: NOTE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 }],
        permissions: [
          { role: OWNER_ONLY, read: 1, write: 1, create: 1, delete: 1, if_owner: 1 },
          { role: READ_ALL, read: 1, write: 1, create: 1, delete: 1 },
        ],
      });
      alice = await createUser(t, 'alice@rt.test', { roles: [OWNER_ONLY] });
      bob = await createUser(t, 'bob@rt.test', { roles: [READ_ALL] });
      carol = await createUser(t, 'carol@rt.test');
      // Refuses after on_change fired inside the transaction: its committed events must never be heard.
      t.site.hooks.on(NOTE, 'on_change', async ({ doc }, next) => {
        if (doc.title === 'refuse late') throw new ValidationError('refused after the write');
        await next();
      });
      base = await listenOnce(t);
    });
    after(async () => {
      for (const s of open) s.close();
      await t.close();
    });

    test('a token connects to the site namespace and hears what is published to its user room', async () => {
      const s = await connect(as(bob));
      t.site.realtime.publish('msgprint', { message: 'hello bob' }, { user: bob.name });
      assert.deepEqual(await s.next('msgprint'), { message: 'hello bob' });
    });

    test('the default namespace, another namespace, a cross-site origin and a wrong token are refused', async () => {
      assert.equal(await refusalOf(base, { ...as(bob), namespace: '/' }), 'Invalid namespace');
      assert.equal(await refusalOf(base, { ...as(bob), namespace: '/other.example.com' }), 'Invalid namespace');
      assert.equal(await refusalOf(base, { headers: { authorization: bob.auth, origin: 'https://evil.example' } }), 'Invalid origin');
      assert.equal(await refusalOf(base, { headers: { authorization: 'token nobody:wrong' } }), 'Invalid credentials');
      // The same host on another port is the site's own page (apps on :8080 talk to :9000).
      assert.equal(await refusalOf(base, { headers: { authorization: bob.auth, origin: 'http://127.0.0.1:8080' } }), 'connected');
    });

    test('the sid cookie authenticates, over long-polling too', async () => {
      const sid = await sessionFor(t.app, bob.name, USER_PASSWORD);
      const s = await connect({ headers: { cookie: `sid=${sid}` }, transports: ['polling'] });
      t.site.realtime.publish('msgprint', 'by cookie', { user: bob.name });
      assert.equal(await s.next('msgprint'), 'by cookie');
    });

    test('events published together and in quick turns reach each client once and in order, over WebSocket and long-polling', async () => {
      const ws = await connect(as(bob));
      const polling = await connect({ ...as(bob), transports: ['polling'] });
      for (let turn = 0; turn < 4; turn++) {
        for (let i = 0; i < 5; i++) t.site.realtime.publish('seq', turn * 5 + i, { user: bob.name });
        await new Promise((resolve) => setImmediate(resolve));
      }
      const expected = Array.from({ length: 20 }, (_, i) => i);
      for (const s of [ws, polling]) {
        await s.next('seq', (n) => n === 19);
        assert.deepEqual(
          s.received.filter((r) => r.event === 'seq').map((r) => r.args[0]),
          expected,
        );
      }
    });

    test('Guest connects with the website room only', async () => {
      const guest = await connect({});
      t.site.realtime.publish('notice', { to: 'all' });
      t.site.realtime.publish('notice', { to: 'website' }, { room: 'website' });
      assert.deepEqual(await guest.next('notice'), { to: 'website' });
      assert.deepEqual(
        guest.received.map((r) => r.args[0]),
        [{ to: 'website' }],
      );
    });

    test('list_update and doc_update follow an insert, a save and a delete, after commit', async () => {
      const s = await connect(as(bob));
      assert.deepEqual(await s.ask('doctype_subscribe', NOTE), { ok: true });
      const doc = await insertAs(bob, { title: 'first' });
      assert.deepEqual(await s.next('list_update', (m) => m.name === doc.name), {
        doctype: NOTE,
        name: doc.name,
        user: bob.name,
        action: 'insert',
      });

      assert.deepEqual(await s.ask('doc_subscribe', NOTE, doc.name), { ok: true });
      const saved = dataOf(
        await t.request({ method: 'PUT', url: resourceUrl(NOTE, doc.name), body: { title: 'second' }, headers: { authorization: bob.auth } }),
      );
      assert.deepEqual(await s.next('doc_update', (m) => m.modified === saved.modified), {
        doctype: NOTE,
        name: doc.name,
        modified: saved.modified,
        action: 'update',
      });

      const deleted = await t.request({ method: 'DELETE', url: resourceUrl(NOTE, doc.name), headers: { authorization: bob.auth } });
      assert.equal(deleted.statusCode, 202, deleted.body);
      assert.equal((await s.next('list_update', (m) => m.action === 'delete')).name, doc.name);
      assert.equal((await s.next('doc_update', (m) => m.action === 'delete')).name, doc.name);
    });

    test('a rolled-back write sends nothing', async () => {
      const s = await connect(as(bob));
      assert.deepEqual(await s.ask('doctype_subscribe', NOTE), { ok: true });
      // A missing mandatory title: 417, nothing stored, nothing sent.
      const refused = await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { name: 'never-stored' }, headers: { authorization: bob.auth } });
      assert.equal(refused.statusCode, 417, refused.body);
      // Refused by a hook after the row was written and on_change had fired.
      const late = await t.request({ method: 'POST', url: resourceUrl(NOTE), body: { title: 'refuse late' }, headers: { authorization: bob.auth } });
      assert.equal(late.statusCode, 417, late.body);
      const marker = await insertAs(bob, { title: 'marker' });
      // Events arrive in commit order: the first one heard is the marker's.
      const first = await s.next('list_update');
      assert.equal(first.name, marker.name);
      assert.equal(s.received.filter((r) => r.event === 'list_update').length, 1);
    });

    test('a refused subscription is ignored: no events, no error', async () => {
      const s = await connect(as(carol));
      assert.deepEqual(await s.ask('doctype_subscribe', NOTE), { ok: false, error: 'not permitted' });
      assert.deepEqual(await s.ask('doctype_subscribe', 'No Such DocType'), { ok: false, error: 'not permitted' });
      assert.deepEqual(await s.ask('doctype_subscribe', { not: 'a name' }), { ok: false, error: 'malformed subscription' });
      await insertAs(bob, { title: 'unseen by carol' });
      t.site.realtime.publish('msgprint', 'marker', { user: carol.name });
      await s.next('msgprint');
      assert.deepEqual(
        s.received.map((r) => r.event),
        ['msgprint'],
      );
      assert.equal(s.socket.connected, true);
    });

    test('a list_update for a row the subscriber may not read never reaches it', async () => {
      const s = await connect(as(alice));
      assert.deepEqual(await s.ask('doctype_subscribe', NOTE), { ok: true });
      const hidden = await insertAs(bob, { title: "bob's private note" });
      const own = await insertAs(alice, { title: "alice's note" });
      const first = await s.next('list_update');
      assert.equal(first.name, own.name);
      assert.ok(!JSON.stringify(s.received).includes(String(hidden.name)));
      // Nor may she follow bob's note directly.
      assert.deepEqual(await s.ask('doc_subscribe', NOTE, hidden.name), { ok: false, error: 'not permitted' });
    });

    test('doc_open tells the viewers of a document who is looking at it', async () => {
      const doc = await insertDoc(t, NOTE, { title: 'shared view' });
      const admin = await connect({ headers: { authorization: t.adminAuth } });
      const viewer = await connect(as(bob));
      assert.deepEqual(await admin.ask('doc_open', NOTE, doc.name), { ok: true });
      assert.deepEqual(await viewer.ask('doc_open', NOTE, doc.name), { ok: true });
      const seen = await admin.next('doc_viewers', (m) => m.users.length === 2);
      assert.deepEqual({ ...seen, users: [...seen.users].sort() }, { doctype: NOTE, docname: doc.name, users: ['Administrator', bob.name].sort() });
      assert.deepEqual(await viewer.ask('doc_close', NOTE, doc.name), { ok: true });
      assert.deepEqual((await admin.next('doc_viewers', (m) => m.users.length === 1)).users, ['Administrator']);
    });

    test('logging out disconnects the sockets of that session only', async () => {
      const sid = await sessionFor(t.app, bob.name, USER_PASSWORD);
      const other = await sessionFor(t.app, bob.name, USER_PASSWORD);
      const ending = await connect({ headers: { cookie: `sid=${sid}` } });
      const staying = await connect({ headers: { cookie: `sid=${other}` } });
      const res = await t.app.inject({ method: 'POST', url: '/api/method/logout', cookies: { sid } });
      assert.equal(res.statusCode, 200, res.body);
      await ending.disconnected();
      t.site.realtime.publish('msgprint', 'still here', { user: bob.name });
      assert.equal(await staying.next('msgprint'), 'still here');
    });

    test('disabling a user disconnects their sockets', async () => {
      const dave = await createUser(t, 'dave@rt.test', { roles: [READ_ALL] });
      const s = await connect(as(dave));
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', dave.name), body: { enabled: 0 } }));
      await s.disconnected();
      assert.match(await refusalOf(base, as(dave)), /Invalid credentials/);
    });

    test('a password change disconnects the user’s other sessions', async () => {
      const erin = await createUser(t, 'erin@rt.test', { roles: [READ_ALL] });
      const sid = await sessionFor(t.app, erin.name, USER_PASSWORD);
      const s = await connect({ headers: { cookie: `sid=${sid}` } });
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', erin.name), body: { new_password: 'Another-Secret-99' } }));
      await s.disconnected();
    });

    test('fw.realtime.has_permission answers true for a reader and 403 otherwise', async () => {
      const doc = await insertAs(bob, { title: 'perm check' });
      const ask = (user: ActingUser, name?: string) =>
        t.request({
          method: 'GET',
          url: `/api/method/frappe.realtime.has_permission?doctype=${encodeURIComponent(NOTE)}${name ? `&name=${name}` : ''}`,
          headers: { authorization: user.auth },
        });
      assert.equal((await ask(bob, doc.name)).json().message, true);
      assert.equal((await ask(alice)).json().message, true);
      assert.equal((await ask(alice, doc.name)).statusCode, 403);
      assert.equal((await ask(carol)).statusCode, 403);
    });
  });
}
