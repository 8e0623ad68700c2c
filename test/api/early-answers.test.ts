import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { storedCount } from '../helpers/document-api.js';
import { filesOnDisk } from '../helpers/file-api.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/** What Node's http client made of an exchange: the answer, or the error it met first. */
interface Outcome {
  readonly statusCode?: number;
  readonly headers?: Record<string, unknown>;
  readonly body?: string;
  readonly error?: string;
}

/**
 * Sends `body` with Node's http module, which writes the whole body before it reads anything,
 * and answers what it read and any error it met on the way (EPIPE, ECONNRESET while writing),
 * once the exchange is over.
 */
function sendWhole(port: number, path: string, body: Buffer, headers: Record<string, string | number>): Promise<Outcome> {
  return new Promise((resolve) => {
    let answer: Omit<Outcome, 'error'> = {};
    let error: string | undefined;
    let answered: Promise<void> = Promise.resolve();
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { connection: 'close', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      answered = new Promise((done) => {
        res.on('end', () => {
          answer = { statusCode: res.statusCode, headers: res.headers, body: text };
          done();
        });
        res.on('error', (err) => {
          error ??= err.message;
          done();
        });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    req.on('close', () => void answered.then(() => resolve({ ...answer, ...(error === undefined ? {} : { error }) })));
    req.end(body);
  });
}

/** Asserts that the client read the error answer in the envelope. */
function assertAnswered(outcome: Outcome, status: number, excType: string): void {
  assert.equal(outcome.error, undefined, `the client met no error while sending (${outcome.error})`);
  assertV1Error({ statusCode: outcome.statusCode ?? 0, headers: outcome.headers ?? {}, body: outcome.body ?? '' }, status, excType);
}

const LIMIT = 64 * 1024;
/** Far more than the limit and than the kernel's socket buffers, well under the linger bound. */
const BIG = 4 * 1024 * 1024;

for (const dialect of testDialects()) {
  describe(`early answers reach clients that write the whole body first (${dialect.name})`, () => {
    let t: TestSite;
    let small: ReopenedSite;
    let port: number;
    before(async () => {
      t = await startTestSite(dialect);
      small = await reopenWithConfig(t, { max_request_size: LIMIT, max_file_size: LIMIT });
      await small.app.listen({ port: 0, host: '127.0.0.1' });
      port = (small.app.server.address() as AddressInfo).port;
    });
    after(async () => {
      await small.close();
      await t.close();
    });

    test('a JSON body over max_request_size by its declared length: 413 read by the client, nothing stored', async () => {
      const before = await storedCount(t, 'ToDo');
      const body = Buffer.from(JSON.stringify({ description: 'x'.repeat(BIG) }));
      const outcome = await sendWhole(port, '/api/resource/ToDo', body, {
        'content-type': 'application/json',
        'content-length': body.length,
        authorization: t.adminAuth,
      });
      assertAnswered(outcome, 413, 'RequestTooLarge');
      assert.equal(outcome.headers?.connection, 'close');
      assert.equal(await storedCount(t, 'ToDo'), before);
    });

    test('a chunked JSON body that grows past max_request_size: 413 read by the client', async () => {
      const body = Buffer.from(JSON.stringify({ description: 'x'.repeat(BIG) }));
      const outcome = await sendWhole(port, '/api/resource/ToDo', body, {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        authorization: t.adminAuth,
      });
      assertAnswered(outcome, 413, 'RequestTooLarge');
    });

    test('a body refused before it is read (bad credentials): 401 read by the client', async () => {
      const body = Buffer.from(JSON.stringify({ description: 'y'.repeat(LIMIT / 2) }).padEnd(LIMIT / 2 + 20, ' '));
      const outcome = await sendWhole(port, '/api/resource/ToDo', Buffer.concat([body, Buffer.alloc(0)]), {
        'content-type': 'application/json',
        'content-length': body.length,
        authorization: 'token nobody:nothing',
      });
      assertAnswered(outcome, 401, 'AuthenticationError');
    });

    test('an upload over max_file_size: 413 read by the client, no staging file left', async () => {
      const boundary = 'fwearlyanswer';
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        Buffer.alloc(BIG, 'z'),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const outcome = await sendWhole(port, '/api/method/upload_file', body, {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': body.length,
        authorization: t.adminAuth,
      });
      assertAnswered(outcome, 413, 'MaxFileSizeReachedError');
      assert.deepEqual(await filesOnDisk(t.site), []);
    });

    test('the server stays up and answers the next request', async () => {
      const outcome = await sendWhole(port, '/api/method/ping', Buffer.from('{}'), { 'content-type': 'application/json', 'content-length': 2 });
      assert.equal(outcome.statusCode, 200, outcome.body ?? outcome.error);
    });
  });
}
