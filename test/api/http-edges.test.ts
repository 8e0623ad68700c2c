import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { PermissionError } from '../../src/errors/index.js';
import { buildApp } from '../../src/http/app.js';
import { testDialects } from '../helpers/dialects.js';
import { storedCount } from '../helpers/document-api.js';
import { assertV1Error, assertV2Error } from '../helpers/error-envelope.js';
import { filesOnDisk } from '../helpers/file-api.js';
import { assertRawError, eventually, open, parseAnswers, rawExchange, readUntilClosed } from '../helpers/raw-http.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

const BOUNDARY = 'fwedgeboundary';
const FILE_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` + 'Content-Type: application/octet-stream\r\n\r\n';

/** The head of an upload request announcing `length` body bytes. */
function uploadHead(auth: string, length: number): string {
  return (
    `POST /api/method/upload_file HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${length}\r\n\r\n`
  );
}

const partFiles = async (t: TestSite) => (await filesOnDisk(t.site)).filter((f) => f.endsWith('.part'));

for (const dialect of testDialects()) {
  describe(`HTTP edges (${dialect.name})`, () => {
    let t: TestSite;
    let served: FastifyInstance;
    let patient: FastifyInstance;
    before(async () => {
      t = await startTestSite(dialect);
      t.site.methods.register('fw.test_edges.add_todo', async ({ ctx, services, args }) => {
        const doc = await services.documents.insert(ctx, 'ToDo', { description: String(args.description ?? 'from a method') });
        return doc.name;
      });
      // Runs its own SQL, beside any service: refused all the same when called with GET.
      t.site.methods.register('fw.test_edges.raw_write', async ({ ctx }) => {
        await ctx.q.run({ sql: "insert into \"tabToDo\" (name, description) values ('x-raw', 'x')", parameters: [] });
        return 'written';
      });
      served = await buildApp(t.site, { bodyIdleTimeoutMs: 400 });
      await served.listen({ port: 0, host: '127.0.0.1' });
      // Waits long enough that a test's own pauses never look idle.
      patient = await buildApp(t.site);
      await patient.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await patient.close();
      await served.close();
      await t.close();
    });

    describe("Fastify's and Node's own request errors carry the envelope", () => {
      test('a bad percent-escape in the path is a 400 InvalidRequestBody (v1 and v2)', async () => {
        assertV1Error(await t.request({ method: 'GET', url: '/api/resource/ToDo/%ZZ' }), 400, 'InvalidRequestBody');
        assertV1Error(await t.request({ method: 'GET', url: '/api/method/%E0%A4%A' }), 400, 'InvalidRequestBody');
        assertV2Error(await t.request({ method: 'GET', url: '/api/v2/document/%ZZ' }), 400, 'InvalidRequestBody');
      });

      test('an over-long path parameter is a 414 with RequestTooLarge', async () => {
        const res = await t.request({ method: 'GET', url: `/api/resource/${'x'.repeat(2100)}` });
        assertV1Error(res, 414, 'RequestTooLarge');
        assert.equal(res.headers['cache-control'], 'no-store');
      });

      test('an unparseable content type is a 400 InvalidRequestBody', async () => {
        const res = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: '{}', headers: { 'content-type': '@@@' } });
        assertV1Error(res, 400, 'InvalidRequestBody');
      });

      test('a multipart body without a boundary is a 400 InvalidRequestBody', async () => {
        const res = await t.request({ method: 'POST', url: '/api/method/upload_file', body: 'x', headers: { 'content-type': 'multipart/form-data' } });
        assertV1Error(res, 400, 'InvalidRequestBody');
      });

      test('oversize request headers are a 431 with RequestTooLarge, on a real socket', async () => {
        const [answer] = await rawExchange(served, `GET /api/method/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        assertRawError(answer, 431, 'RequestTooLarge');
        assert.equal(answer.headers['cache-control'], 'no-store');
      });

      test('a garbled request line is a 400 InvalidRequestBody, on a real socket', async () => {
        const [answer] = await rawExchange(served, 'NOT A REQUEST\r\n\r\n');
        assertRawError(answer, 400, 'InvalidRequestBody');
      });

      test('a request arriving while the server shuts down is a 503 ServiceUnavailableError', async () => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        t.site.methods.register(
          'fw.test_edges.hold',
          async () => {
            started();
            await held;
            return 'held';
          },
          { allowGuest: true, usesDatabase: false },
        );
        const closing = await buildApp(t.site);
        await closing.listen({ port: 0, host: '127.0.0.1' });
        const socket = await open(closing);
        const text = readUntilClosed(socket);
        // The connection is busy with a held request when close() begins, so it stays open, and a
        // second request pipelined on it then arrives during the shutdown.
        socket.write('GET /api/method/fw.test_edges.hold HTTP/1.1\r\nHost: x\r\n\r\n');
        await running;
        const closed = closing.close();
        await new Promise((r) => setTimeout(r, 50));
        socket.write('GET /api/method/ping HTTP/1.1\r\nHost: x\r\n\r\n');
        await new Promise((r) => setTimeout(r, 50));
        release();
        await closed;
        const [first, second] = parseAnswers(await text);
        assert.equal(first?.statusCode, 200, first?.body);
        assertRawError(second, 503, 'ServiceUnavailableError');
      });
    });

    describe('secrets in the query string stay out of the request log', () => {
      test('pwd, api_secret, new_password, sid and tokens are redacted; other parameters stay', async () => {
        const lines: string[] = [];
        const stream = new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString('utf8'));
            done();
          },
        });
        const logged = await buildApp(t.site, { logger: { level: 'info', stream } });
        try {
          const login = await logged.inject({ method: 'POST', url: `/api/method/login?usr=Administrator&pwd=${ADMIN_PASSWORD}` });
          assert.equal(login.statusCode, 200, login.body);
          await logged.inject({ method: 'GET', url: `/?cmd=login&usr=Administrator&pwd=${ADMIN_PASSWORD}` });
          await logged.inject({
            method: 'GET',
            url: '/api/method/ping?api_secret=s3cr3t-one&new%5Fpassword=s3cr3t-two&sid=s3cr3t-three&csrf_token=s3cr3t-four&keep=visible',
          });
        } finally {
          await logged.close();
        }
        const log = lines.join('');
        assert.match(log, /incoming request/);
        assert.ok(!log.includes(ADMIN_PASSWORD), 'the password is not in the log');
        assert.ok(!/s3cr3t/.test(log), `no secret is in the log: ${log.slice(0, 2000)}`);
        assert.match(log, /pwd=\[REDACTED\]/);
        assert.match(log, /usr=Administrator/);
        assert.match(log, /keep=visible/);
      });
    });

    describe('GET method calls are read-only', () => {
      test('a method that writes, called with GET, is a 403 telling the client to use POST, and stores nothing', async () => {
        const before = await storedCount(t, 'ToDo');
        const res = await t.request({ method: 'GET', url: '/api/method/fw.test_edges.add_todo?description=sneaky' });
        const { messages } = assertV1Error(res, 403, 'PermissionError');
        assert.match(messages.map((m) => m.message).join(' '), /POST/);
        assert.equal(await storedCount(t, 'ToDo'), before, 'nothing was stored');
        const posted = await t.request({ method: 'POST', url: '/api/method/fw.test_edges.add_todo', body: { description: 'posted' } });
        assert.equal(posted.statusCode, 200, posted.body);
        assert.equal(await storedCount(t, 'ToDo'), before + 1);
      });

      test('the same holds under the frappe prefix and through v2', async () => {
        assertV1Error(await t.request({ method: 'GET', url: '/api/method/frappe.test_edges.add_todo' }), 403, 'PermissionError');
        assertV2Error(await t.request({ method: 'GET', url: '/api/v2/method/fw.test_edges.add_todo' }), 403, 'PermissionError');
      });

      test('a write in a read unit is refused by the database and translated to PermissionError, not a driver error', async () => {
        const write = { sql: "insert into \"tabToDo\" (name, description) values ('x-ro', 'x')", parameters: [] };
        await assert.rejects(
          t.site.db.read((q) => q.run(write)),
          PermissionError,
        );
        // Raw SQL a handler runs itself meets the same refusal: nothing matches statement text.
        const res = await t.request({ method: 'GET', url: '/api/method/fw.test_edges.raw_write' });
        assertV1Error(res, 403, 'PermissionError');
        assert.equal((await t.site.db.readOne({ sql: 'select name from "tabToDo" where name = \'x-raw\'', parameters: [] })).length, 0);
      });
    });

    describe('a JSON body on GET is honoured', () => {
      const json = { 'content-type': 'application/json' };

      test('for a resource list: fields, filters and paging come from the body', async () => {
        const made = await t.request({ method: 'POST', url: '/api/resource/ToDo', body: { description: 'found through a GET body' } });
        const name = made.json().data.name;
        const body = JSON.stringify({ fields: ['name', 'description'], filters: [['description', '=', 'found through a GET body']], limit_page_length: 5 });
        const res = await t.request({ method: 'GET', url: '/api/resource/ToDo', body, headers: json });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().data, [{ name, description: 'found through a GET body' }]);
      });

      test('for a method call, replacing the query string', async () => {
        const body = JSON.stringify({ doctype: 'ToDo', filters: { description: 'found through a GET body' } });
        const res = await t.request({ method: 'GET', url: '/api/method/frappe.client.get_count?doctype=User', body, headers: json });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().message, 1);
      });

      test('malformed JSON or a scalar on GET is a 400 InvalidRequestBody', async () => {
        assertV1Error(await t.request({ method: 'GET', url: '/api/method/ping', body: '{"a":', headers: json }), 400, 'InvalidRequestBody');
        assertV1Error(await t.request({ method: 'GET', url: '/api/resource/ToDo', body: '42', headers: json }), 400, 'InvalidRequestBody');
      });
    });

    describe('uploads cut off by the client', () => {
      test('a client that disconnects mid-upload leaves no partial file, and the server still answers', async () => {
        const socket = await open(patient);
        socket.on('error', () => undefined);
        socket.write(uploadHead(t.adminAuth, 1_000_000) + FILE_HEAD + 'x'.repeat(64 * 1024));
        await eventually(async () => (await partFiles(t)).length > 0, 'the upload started staging');
        socket.destroy();
        await eventually(async () => (await partFiles(t)).length === 0, 'the partial upload was removed');
        const ping = await patient.inject({ method: 'GET', url: '/api/method/ping' });
        assert.equal(ping.statusCode, 200);
      });

      test('a client that disconnects after the file, in a later field, leaves nothing either', async () => {
        const socket = await open(patient);
        socket.on('error', () => undefined);
        const fieldHead = `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="is_private"\r\n\r\n`;
        socket.write(uploadHead(t.adminAuth, 1_000_000) + FILE_HEAD + 'whole file' + fieldHead + '1');
        await new Promise((r) => setTimeout(r, 300));
        socket.destroy();
        await eventually(async () => (await partFiles(t)).length === 0, 'the staged upload was removed');
      });

      test('an upload that stops arriving is answered 408 after the idle timeout and leaves no partial file', async () => {
        const socket = await open(served);
        const text = readUntilClosed(socket);
        socket.write(uploadHead(t.adminAuth, 1_000_000) + FILE_HEAD + 'x'.repeat(32 * 1024));
        const [answer] = parseAnswers(await text);
        assert.ok(answer, 'the server answered');
        assert.equal(answer.statusCode, 408, answer.body);
        assert.equal(JSON.parse(answer.body).exc_type, 'InvalidRequestBody');
        await eventually(async () => (await partFiles(t)).length === 0, 'the partial upload was removed');
      });

      test('a JSON body that stops arriving has its connection closed after the idle timeout', async () => {
        const socket = await open(served);
        const text = readUntilClosed(socket, 5000);
        const started = Date.now();
        socket.write('POST /api/resource/ToDo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"descr');
        await text;
        assert.ok(Date.now() - started < 4000, 'the connection was closed by the server');
      });
    });
  });
}
