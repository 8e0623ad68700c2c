import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { UploadedFile } from '../../src/files/uploaded-file.js';
import { testDialects } from '../helpers/dialects.js';
import { fileRowCount, filesOnDisk } from '../helpers/file-api.js';
import { assertRawError, firstAnswer, open } from '../helpers/raw-http.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const BOUNDARY = 'fwcutboundary';
const FILE_PART = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="small.txt"\r\n` + 'Content-Type: text/plain\r\n\r\nsmall file\r\n';

/** A whole request: `body` with the exact Content-Length, as `auth` (Guest without). */
function uploadRequest(body: string, auth: string | undefined, path = '/api/method/upload_file'): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${auth ? `Authorization: ${auth}\r\n` : ''}` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Bodies that end before their closing delimiter `\r\n--boundary--`. */
const CUT_SHORT: Record<string, string> = {
  'inside the closing delimiter, before its dashes': `${FILE_PART}--${BOUNDARY}`,
  'inside the closing delimiter, after one dash': `${FILE_PART}--${BOUNDARY}-`,
  'inside the closing boundary itself': `${FILE_PART}--${BOUNDARY.slice(0, 4)}`,
  'right after the file bytes': FILE_PART,
  'inside a field after the file': `${FILE_PART}--${BOUNDARY}\r\nContent-Disposition: form-data; name="is_private"\r\n\r\n1`,
  'after a field, with no closing delimiter': `${FILE_PART}--${BOUNDARY}\r\nContent-Disposition: form-data; name="is_private"\r\n\r\n1\r\n`,
};

const stagingFiles = async (t: TestSite) => (await filesOnDisk(t.site)).filter((f) => f.endsWith('.part'));

for (const dialect of testDialects()) {
  describe(`multipart bodies cut short, and Guest uploads (${dialect.name})`, () => {
    let t: TestSite;
    // The default idle timeout (60 s): an answer within a test's time is not the timeout's 408.
    let app: FastifyInstance;
    before(async () => {
      t = await startTestSite(dialect);
      t.site.methods.register('fw.test_uploads.guest_drop_box', async ({ args }) => args.file instanceof UploadedFile, {
        allowGuest: true,
        methods: ['POST'],
        usesDatabase: false,
      });
      app = await buildApp(t.site);
      await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app.close();
      await t.close();
    });

    for (const [where, body] of Object.entries(CUT_SHORT)) {
      test(`a complete body cut ${where} is a 400 at once, and leaves nothing on disk or in the database`, async () => {
        const files = await fileRowCount(t.site);
        const socket = await open(app);
        const answer = firstAnswer(socket);
        socket.write(uploadRequest(body, t.adminAuth));
        assertRawError(await answer, 400, 'InvalidRequestBody');
        socket.destroy();
        assert.deepEqual(await stagingFiles(t), []);
        assert.equal(await fileRowCount(t.site), files);
      });
    }

    test('the same body with its closing delimiter is stored', async () => {
      const socket = await open(app);
      const answer = firstAnswer(socket);
      socket.write(uploadRequest(`${FILE_PART}--${BOUNDARY}--\r\n`, t.adminAuth));
      const got = await answer;
      socket.destroy();
      assert.equal(got?.statusCode, 200, got?.body);
      assert.equal(JSON.parse(got.body).message.file_name, 'small.txt');
      assert.deepEqual(await stagingFiles(t), []);
    });

    test('a Guest upload is refused before its body is read: 403, and no staging file ever appears', async () => {
      const socket = await open(app);
      const answer = firstAnswer(socket);
      // The head and the start of a 1 MB file: the answer comes while the body is still owed.
      const head = uploadRequest(`${FILE_PART.slice(0, -'small file\r\n'.length)}`, undefined).replace(/Content-Length: \d+/, 'Content-Length: 1000000');
      socket.write(head + 'g'.repeat(32 * 1024));
      assertRawError(await answer, 403, 'PermissionError');
      assert.deepEqual(await stagingFiles(t), []);
      socket.destroy();
    });

    test('a Guest upload cut short is refused the same way and leaves nothing', async () => {
      for (const body of Object.values(CUT_SHORT)) {
        const socket = await open(app);
        const answer = firstAnswer(socket);
        socket.write(uploadRequest(body, undefined));
        assertRawError(await answer, 403, 'PermissionError');
        socket.destroy();
      }
      assert.deepEqual(await stagingFiles(t), []);
    });

    test('a method that allows Guest still receives a Guest file', async () => {
      const socket = await open(app);
      const answer = firstAnswer(socket);
      socket.write(uploadRequest(`${FILE_PART}--${BOUNDARY}--\r\n`, undefined, '/api/method/fw.test_uploads.guest_drop_box'));
      const got = await answer;
      socket.destroy();
      assert.equal(got?.statusCode, 200, got?.body);
      assert.deepEqual(JSON.parse(got.body), { message: true });
      assert.deepEqual(await stagingFiles(t), []);
    });

    test('Guest file parts sent anywhere else are read past, never staged', async () => {
      const socket = await open(app);
      const answer = firstAnswer(socket);
      socket.write(uploadRequest(`${FILE_PART}--${BOUNDARY}--\r\n`, undefined, '/api/method/ping'));
      const got = await answer;
      socket.destroy();
      assert.equal(got?.statusCode, 200, got?.body);
      assert.deepEqual(await stagingFiles(t), []);
    });
  });
}
