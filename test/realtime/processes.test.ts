import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/open-database.js';
import { testDialects } from '../helpers/dialects.js';
import { openEventStream, streamOf } from '../helpers/event-stream.js';
import { httpCall } from '../helpers/http-call.js';
import { connectSocket, type RecordingSocket } from '../helpers/realtime-client.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-site.js';
import { wireAdmin, type WireAdmin } from '../helpers/wire-admin.js';

/*
 * Realtime across processes (docs/realtime.md, "Across processes"): `fw serve --workers 2`, where
 * the workers exchange events through the primary (SQLite) or PostgreSQL, and where every request
 * of a long-polling session reaches the worker holding it; and two separate `fw serve` processes
 * on one PostgreSQL database.
 */

const NS = '/127.0.0.1';

/** Inserts a ToDo over a fresh connection (so a cluster hands consecutive calls to its workers in turn). */
async function insertTodo(base: string, admin: WireAdmin, description: string): Promise<string> {
  const res = await httpCall(base, { method: 'POST', path: '/api/resource/ToDo', headers: { authorization: admin.authorization }, body: { description } });
  assert.equal(res.status, 200, res.text);
  return String((res.json().data as { name: string }).name);
}

/** A raw Engine.IO long-polling session, every request on a fresh connection: the case that needs sticky routing. */
class RawPollingSession {
  #sid = '';
  private constructor(
    private readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  static async open(base: string, headers: Record<string, string>): Promise<RawPollingSession> {
    const s = new RawPollingSession(base, headers);
    const res = await httpCall(base, { method: 'GET', path: '/socket.io/?EIO=4&transport=polling', headers });
    assert.equal(res.status, 200, res.text);
    s.#sid = (JSON.parse(res.text.slice(1)) as { sid: string }).sid;
    return s;
  }

  async send(packet: string): Promise<void> {
    const res = await this.#call('POST', packet);
    assert.equal(res.text, 'ok', `POST ${packet}: ${res.status} ${res.text}`);
  }

  /** Polls until a packet starting with `prefix` arrives. */
  async receive(prefix: string): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const res = await this.#call('GET');
      assert.equal(res.status, 200, `poll: ${res.status} ${res.text}`);
      const found = res.text.split('\x1e').find((p) => p.startsWith(prefix));
      if (found) return found;
    }
    throw new Error(`no packet ${prefix}`);
  }

  #call(method: 'GET' | 'POST', body?: string) {
    const path = `/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(this.#sid)}`;
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      void import('node:http').then(({ request }) => {
        const req = request(new URL(path, this.base), { method, agent: false, headers: { ...this.headers, 'content-type': 'text/plain' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    });
  }
}

/**
 * Requests over one kept-alive connection, so they all reach the same worker: the events of writes
 * made by one process keep their order on every bus (docs/realtime.md, "Across processes").
 */
function pinnedClient(base: string, authorization: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, body?: unknown) =>
    new Promise<any>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = { authorization, accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) };
      const req = request(new URL(path, base), { method, agent, headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { call, close: () => agent.destroy() };
}

for (const dialect of testDialects()) {
  describe(`realtime with fw serve --workers 2 (${dialect.name})`, () => {
    let dir: string;
    let drop: (() => Promise<void>) | undefined;
    let serve: ServeProcess | undefined;
    let admin: WireAdmin;
    const sockets: RecordingSocket[] = [];
    /** A user who reads `CP Note` through a role, with her API token, and a note of that DocType. */
    let ivy: { name: string; auth: string; note: string };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fw-rt-cluster-'));
      const db = await dialect.createUrl();
      drop = db.drop;
      serve = await startServe(['--site', join(dir, 'site'), '--db', db.url], {
        workers: 2,
        env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD },
        readyTimeoutMs: 180_000,
      });
      admin = await wireAdmin(serve.baseUrl, ADMIN_PASSWORD);
    });
    after(async () => {
      for (const s of sockets) s.close();
      await serve?.kill();
      await drop?.();
      await rm(dir, { recursive: true, force: true });
    });

    test('every socket hears every insert, whichever worker served the socket and the write', async () => {
      const base = serve!.baseUrl;
      for (let i = 0; i < 4; i++) {
        const s = await connectSocket(base, { headers: { authorization: admin.authorization } });
        sockets.push(s);
        assert.deepEqual(await s.ask('doctype_subscribe', 'ToDo'), { ok: true });
      }
      const names: string[] = [];
      for (let i = 0; i < 6; i++) names.push(await insertTodo(base, admin, `cluster ${i}`));
      for (const s of sockets) {
        // Through NOTIFY the last write's event may come before an earlier one's: wait for each.
        for (const name of names) await s.next('list_update', (m) => m.name === name);
        const heard = s.received.filter((r) => r.event === 'list_update').map((r) => (r.args[0] as { name: string }).name);
        // docs/realtime.md "Across processes": through the primary (SQLite) in commit order; through
        // NOTIFY (PostgreSQL) writes served by different processes may arrive in either order.
        if (dialect.name === 'sqlite') assert.deepEqual(heard, names, 'all six, in commit order');
        else assert.deepEqual([...heard].sort(), [...names].sort(), 'all six, once each');
      }
    });

    test('a long-polling session works although each of its requests may reach another worker', async () => {
      const base = serve!.baseUrl;
      const session = await RawPollingSession.open(base, { authorization: admin.authorization });
      await session.send(`40${NS},`);
      assert.match(await session.receive(`40${NS},`), /"sid"/);
      await session.send(`42${NS},7["doctype_subscribe","ToDo"]`);
      assert.equal(await session.receive(`43${NS},7`), `43${NS},7[{"ok":true}]`);
      const name = await insertTodo(base, admin, 'polled');
      const packet = await session.receive(`42${NS},["list_update"`);
      assert.equal(JSON.parse(packet.slice(`42${NS},`.length))[1].name, name);
    });

    test('an event stream resumes with Last-Event-ID on whichever worker it reconnects to', async () => {
      const base = serve!.baseUrl;
      const url = `${base}/api/v2/realtime?doctype=ToDo`;
      const first = streamOf(await openEventStream(url, { authorization: admin.authorization }));
      await first.next('ready');
      const seen = await insertTodo(base, admin, 'seen');
      const lastId = (await first.next('list_update', (d) => d.name === seen)).id as string;
      first.close();
      const missed = [await insertTodo(base, admin, 'missed a'), await insertTodo(base, admin, 'missed b')];
      for (let attempt = 0; attempt < 2; attempt++) {
        // Two reconnections: consecutive connections go to different workers.
        const again = streamOf(await openEventStream(url, { authorization: admin.authorization, 'last-event-id': lastId }));
        await again.next('list_update', (d) => d.name === missed[1]);
        const replayed = again.events.filter((e) => e.event === 'list_update').map((e) => e.data.name);
        // Order across processes is exact through the primary, best effort through NOTIFY (docs/realtime.md).
        if (dialect.name === 'sqlite') assert.deepEqual(replayed, missed);
        else assert.deepEqual([...replayed].sort(), [...missed].sort());
        again.close();
      }
    });

    test('a role taken away stops doc_update on every worker at once', async () => {
      const base = serve!.baseUrl;
      const adminCalls = pinnedClient(base, admin.authorization);
      try {
        // CP Note is read through CP Reader, taken away below; CP Mark through CP Marker, which she keeps.
        for (const [doctype, role] of [
          ['CP Note', 'CP Reader'],
          ['CP Mark', 'CP Marker'],
        ]) {
          await adminCalls.call('POST', '/api/resource/Role', { role_name: role });
          await adminCalls.call('POST', '/api/resource/DocType', {
            name: doctype,
            fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 }],
            permissions: [
              { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
              { role, read: 1 },
            ],
          });
        }
        const user = (
          await adminCalls.call('POST', '/api/resource/User', {
            email: 'ivy@cp.test',
            first_name: 'Ivy',
            roles: [{ role: 'CP Reader' }, { role: 'CP Marker' }],
          })
        ).data;
        const keys = (await adminCalls.call('POST', '/api/method/fw.core.doctype.user.user.generate_keys', { user: user.name })).message;
        const note = (await adminCalls.call('POST', '/api/resource/CP Note', { title: 'read by role' })).data;
        ivy = { name: user.name, auth: `token ${keys.api_key}:${keys.api_secret}`, note: note.name };
        // Four sockets: the cluster hands connections to its workers in turn.
        const hers: RecordingSocket[] = [];
        for (let i = 0; i < 4; i++) {
          const s = await connectSocket(base, { headers: { authorization: ivy.auth } });
          sockets.push(s);
          hers.push(s);
          assert.deepEqual(await s.ask('doc_subscribe', 'CP Note', ivy.note), { ok: true });
          assert.deepEqual(await s.ask('doctype_subscribe', 'CP Mark'), { ok: true });
        }
        await adminCalls.call('PUT', `/api/resource/User/${encodeURIComponent(ivy.name)}`, { roles: [{ role: 'CP Marker' }] });
        const saved = (await adminCalls.call('PUT', `/api/resource/CP Note/${encodeURIComponent(ivy.note)}`, { title: 'role gone' })).data;
        // A CP Mark written after the save, by the same process: once a socket has its list_update,
        // the save's doc_update, had it been sent, would have arrived before it.
        const marker = (await adminCalls.call('POST', '/api/resource/CP Mark', { title: 'marker' })).data;
        for (const s of hers) {
          await s.next('list_update', (m) => m.name === marker.name);
          assert.equal(s.received.filter((r) => r.event === 'doc_update' && (r.args[0] as { modified: string }).modified === saved.modified).length, 0);
        }
      } finally {
        adminCalls.close();
      }
    });

    test('replacing an API secret ends the sockets and streams opened with it on every worker', async () => {
      const base = serve!.baseUrl;
      const hers: RecordingSocket[] = [];
      for (let i = 0; i < 4; i++) {
        const s = await connectSocket(base, { headers: { authorization: ivy.auth } });
        sockets.push(s);
        hers.push(s);
      }
      const streams = [];
      for (let i = 0; i < 2; i++) {
        const s = streamOf(await openEventStream(`${base}/api/v2/realtime`, { authorization: ivy.auth }));
        await s.next('ready');
        streams.push(s);
      }
      const res = await httpCall(base, {
        method: 'POST',
        path: '/api/method/fw.core.doctype.user.user.generate_keys',
        headers: { authorization: admin.authorization },
        body: { user: ivy.name },
      });
      assert.equal(res.status, 200, res.text);
      for (const s of hers) assert.equal(await s.disconnected(), 'io server disconnect');
      for (const s of streams) {
        await s.ended();
        assert.deepEqual(s.events.at(-1)?.data, { reason: 'credentials revoked' });
      }
    });
  });
}

const postgres = testDialects().find((d) => d.name === 'postgres');

describe('realtime across two fw serve processes on one PostgreSQL database', { skip: postgres ? false : 'PostgreSQL not in FW_TEST_DIALECTS' }, () => {
  let dir: string;
  let db: { url: string; drop(): Promise<void> };
  let first: ServeProcess | undefined;
  let second: ServeProcess | undefined;
  let admin: WireAdmin;
  let socket: RecordingSocket | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-rt-pg-'));
    db = await postgres!.createUrl();
    const site = ['--site', join(dir, 'site'), '--db', db.url];
    first = await startServe(site, { workers: 1, env: { FW_ADMIN_PASSWORD: ADMIN_PASSWORD }, readyTimeoutMs: 180_000 });
    // The second also serves Socket.IO on a port of its own, as frappe-ui apps expect on 9000.
    second = await startServe([...site, '--socketio-port', '0'], { workers: 1, readyTimeoutMs: 180_000 });
    admin = await wireAdmin(first.baseUrl, ADMIN_PASSWORD);
  });
  after(async () => {
    socket?.close();
    await first?.kill();
    await second?.kill();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a write on one process reaches a socket on the other, big payloads included', async () => {
    const line = await second!.waitForLog((l) => /^Socket\.IO also listening on port \d+$/.test(l.msg), 10_000);
    const port = Number(/(\d+)$/.exec(String(line?.msg))?.[1]);
    socket = await connectSocket(`http://127.0.0.1:${port}`, { headers: { authorization: admin.authorization } });
    assert.deepEqual(await socket.ask('doctype_subscribe', 'ToDo'), { ok: true });
    const name = await insertTodo(first!.baseUrl, admin, 'from the first process');
    assert.equal((await socket.next('list_update', (m) => m.name === name)).user, 'Administrator');
    // One transaction touching many documents: one batch, over NOTIFY's 8000-byte limit.
    const many = Array.from({ length: 60 }, (_, i) => ({ doctype: 'ToDo', description: `bulk ${i} ${'x'.repeat(40)}` }));
    const res = await httpCall(first!.baseUrl, {
      method: 'POST',
      path: '/api/method/frappe.client.insert_many',
      headers: { authorization: admin.authorization },
      body: { docs: many },
    });
    assert.equal(res.status, 200, res.text);
    const names = res.json().message as string[];
    await socket.next('list_update', (m) => m.name === names[names.length - 1]);
  });

  test('after the listening connection is killed, events stored meanwhile still arrive', async () => {
    const admin_db = await openDatabase(db.url, { poolSize: 1 });
    try {
      const killed = await admin_db.read((q) =>
        q.all({
          sql: "select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = 'fw-listen' and datname = current_database()",
          parameters: [],
        }),
      );
      assert.ok(killed.length >= 2, 'both processes had a listening connection');
    } finally {
      await admin_db.close();
    }
    const name = await insertTodo(first!.baseUrl, admin, 'while reconnecting');
    assert.equal((await socket!.next('list_update', (m) => m.name === name)).name, name);
  });
});
