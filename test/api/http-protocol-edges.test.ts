import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error, assertV2Error } from '../helpers/error-envelope.js';
import { assertRawError, eventually, open, rawExchange } from '../helpers/raw-http.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/** A log line as pino writes it. */
interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

for (const dialect of testDialects()) {
  describe(`HTTP protocol edges (${dialect.name})`, () => {
    let t: TestSite;
    let served: FastifyInstance;
    const lines: LogLine[] = [];
    before(async () => {
      t = await startTestSite(dialect);
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
          done();
        },
      });
      served = await buildApp(t.site, { logger: { level: 'debug', stream } });
      await served.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await served.close();
      await t.close();
    });

    describe("Node's own refusals carry the envelope", () => {
      test('an HTTP/1.1 request without Host is a 400 InvalidRequestBody in JSON', async () => {
        const [answer] = await rawExchange(served, 'GET /api/method/ping HTTP/1.1\r\n\r\n');
        assertRawError(answer, 400, 'InvalidRequestBody');
        assert.match(JSON.parse(answer.body).exception, /Host/);
        assert.equal(answer.headers['cache-control'], 'no-store');
      });

      test('HTTP/1.0 needs no Host, and a request with one is served as before', async () => {
        const [old] = await rawExchange(served, 'GET /api/method/ping HTTP/1.0\r\n\r\n');
        assert.equal(old?.statusCode, 200, old?.body);
        const [current] = await rawExchange(served, 'GET /api/method/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        assert.equal(current?.statusCode, 200, current?.body);
        assert.deepEqual(JSON.parse(current.body), { message: 'pong' });
      });

      test('an Expect other than 100-continue is a 417 in JSON, with the security headers', async () => {
        const [answer] = await rawExchange(served, 'GET /api/method/ping HTTP/1.1\r\nHost: x\r\nExpect: gzip\r\n\r\n');
        assertRawError(answer, 417, 'InvalidRequestBody');
        assert.match(JSON.parse(answer.body).exception, /Expect/);
        assert.equal(answer.headers['x-content-type-options'], 'nosniff');
        assert.equal(answer.headers['cache-control'], 'no-store');
      });

      test('Expect: 100-continue still gets its interim answer and the real one', async () => {
        const body = JSON.stringify({ description: 'after continue' });
        const socket = await open(served);
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        const closed = new Promise((resolve) => socket.on('close', resolve));
        socket.write(
          `POST /api/resource/ToDo HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.adminAuth}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
        );
        await eventually(async () => text.startsWith('HTTP/1.1 100 Continue'), 'the server asked for the body');
        socket.write(body);
        await closed;
        assert.match(text, /HTTP\/1\.1 200 OK/);
        assert.match(text, /"description":"after continue"/);
      });
    });

    describe('requests asking to switch protocols elsewhere than Socket.IO are served as HTTP', () => {
      test('a WebSocket upgrade to an API path is answered, not dropped', async () => {
        const [answer] = await rawExchange(
          served,
          'GET /api/method/ping HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          3000,
        );
        assert.equal(answer?.statusCode, 200, answer?.body);
        assert.deepEqual(JSON.parse(answer.body), { message: 'pong' });
      });

      test("curl --http2's h2c upgrade is ignored: the request, its body and the next one on the connection are served", async () => {
        const body = JSON.stringify({ description: 'through an h2c upgrade' });
        const h2c = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n';
        const [created, pong] = await rawExchange(
          served,
          `POST /api/resource/ToDo HTTP/1.1\r\nHost: x\r\n${h2c}Authorization: ${t.adminAuth}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
            'GET /api/method/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
          3000,
        );
        assert.equal(created?.statusCode, 200, created?.body);
        assert.equal(JSON.parse(created.body).data.description, 'through an h2c upgrade');
        assert.equal(pong?.statusCode, 200, pong?.body);
      });
    });

    describe('requests the client gives up on are logged quietly', () => {
      test('a GET whose JSON body is cut off by the client is a debug line, not an unhandled error', async () => {
        const before = lines.length;
        const socket = await open(served);
        socket.on('error', () => undefined);
        socket.write('GET /api/method/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
        await eventually(async () => lines.slice(before).some((l) => l.msg === 'incoming request'), 'the request arrived');
        socket.destroy();
        await eventually(async () => lines.slice(before).some((l) => l.msg === 'request aborted by the client'), 'the abort was logged');
        const loud = lines.slice(before).filter((l) => l.level >= 40);
        assert.deepEqual(
          loud.map((l) => l.msg),
          [],
          'nothing was logged at warn level or above',
        );
        const [answer] = await rawExchange(served, 'GET /api/method/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        assert.equal(answer?.statusCode, 200);
      });
    });

    describe('HEAD is answered like GET, without a body', () => {
      const heads = [
        '/api/resource/User',
        '/api/resource/User?limit=0',
        '/api/resource/User/Administrator',
        '/api/v2/document/User/Administrator',
        '/api/method/ping',
        '/api/method/frappe.client.get_count?doctype=User',
        '/api/v2/method/frappe.client.get_count?doctype=User',
      ];
      for (const url of heads) {
        test(`HEAD ${url}`, async () => {
          const get = await t.request({ method: 'GET', url });
          const head = await t.request({ method: 'HEAD', url });
          assert.equal(get.statusCode, 200, get.body);
          assert.equal(head.statusCode, 200, head.body);
          assert.equal(head.body, '', 'no body');
          assert.equal(head.headers['content-type'], get.headers['content-type']);
          assert.equal(head.headers['cache-control'], 'no-store');
        });
      }

      test('HEAD answers the same refusals as GET', async () => {
        const missing = '/api/resource/User/nobody@example.com';
        assert.equal((await t.request({ method: 'HEAD', url: missing })).statusCode, (await t.request({ method: 'GET', url: missing })).statusCode);
        assert.equal((await t.request({ method: 'HEAD', url: '/api/resource/User', anonymous: true })).statusCode, 403);
        assertV1Error(await t.request({ method: 'GET', url: '/api/method/upload_file' }), 403, 'PermissionError');
        assert.equal((await t.request({ method: 'HEAD', url: '/api/method/upload_file' })).statusCode, 403);
        assertV2Error(await t.request({ method: 'GET', url: '/api/v2/document/User/nobody@example.com' }), 404, 'DoesNotExistError');
        assert.equal((await t.request({ method: 'HEAD', url: '/api/v2/document/User/nobody@example.com' })).statusCode, 404);
      });
    });
  });
}
