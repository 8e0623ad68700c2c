import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { fileOf, sha256, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const BOARD = 'Serve Board';
const CONTENT = '0123456789abcdefghij';

for (const dialect of testDialects()) {
  describe(`serving files (${dialect.name})`, () => {
    let t: TestSite;
    let owner: SignedInUser;
    let stranger: SignedInUser;
    let manager: SignedInUser;
    let privateUrl: string;
    let attachedUrl: string;
    before(async () => {
      t = await startTestSite(dialect);
      owner = await signUp(t, 'owner@example.com');
      stranger = await signUp(t, 'stranger@example.com');
      manager = await signUp(t, 'manager@example.com', ['System Manager']);
      fileOf(await uploadFile(t, 'digits.txt', CONTENT));
      privateUrl = fileOf(await uploadFile(t, 'secret.txt', 'owner only', { is_private: '1' }, owner)).file_url;
      const dt = await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: { name: BOARD, fields: [{ fieldname: 'title', fieldtype: 'Data' }], permissions: [{ role: 'System Manager' }, { role: 'All' }] },
      });
      assert.equal(dt.statusCode, 200, dt.body);
      const board = await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(BOARD)}`, body: { title: 'b' } });
      const fields = { is_private: '1', doctype: BOARD, docname: String(board.json().data.name) };
      attachedUrl = fileOf(await uploadFile(t, 'minutes.txt', 'meeting minutes', fields, owner)).file_url;
    });
    after(() => t.close());

    const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url, headers });

    describe('public files', () => {
      test('are served to Guest with their content type, ETag, Last-Modified and caching headers', async () => {
        const res = await get('/files/digits.txt');
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, CONTENT);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.headers['content-length'], String(CONTENT.length));
        assert.equal(res.headers.etag, `"${sha256(CONTENT)}"`);
        assert.ok(!Number.isNaN(Date.parse(String(res.headers['last-modified']))));
        assert.match(String(res.headers['cache-control']), /^public, max-age=\d+$/);
        assert.equal(res.headers['accept-ranges'], 'bytes');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      });

      for (const [name, type] of [
        ['photo.png', 'image/png'],
        ['report.pdf', 'application/pdf'],
        ['sheet.xlsx', 'application/octet-stream'],
        ['blob.unknownext', 'application/octet-stream'],
      ]) {
        test(`${name} is served as ${type}`, async () => {
          fileOf(await uploadFile(t, name, `bytes of ${name}`));
          assert.equal((await get(`/files/${name}`)).headers['content-type'], type);
        });
      }

      test('an uploaded HTML file is served sandboxed, so its script cannot act as the site', async () => {
        fileOf(await uploadFile(t, 'page.html', '<script>alert(1)</script>'));
        const res = await get('/files/page.html');
        assert.match(String(res.headers['content-security-policy']), /sandbox/);
      });

      test('names with spaces are served from their percent-encoded URL', async () => {
        fileOf(await uploadFile(t, 'my notes.txt', 'spaced'));
        assert.equal((await get('/files/my%20notes.txt')).body, 'spaced');
      });

      test('a matching If-None-Match answers 304 without a body', async () => {
        const res = await get('/files/digits.txt', { 'if-none-match': `"${sha256(CONTENT)}"` });
        assert.equal(res.statusCode, 304);
        assert.equal(res.body, '');
        assert.equal(res.headers.etag, `"${sha256(CONTENT)}"`);
      });

      test('a stale If-None-Match answers 200 with the file', async () => {
        const res = await get('/files/digits.txt', { 'if-none-match': '"something-else"' });
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, CONTENT);
      });

      test('If-Modified-Since at or after Last-Modified answers 304', async () => {
        const lastModified = String((await get('/files/digits.txt')).headers['last-modified']);
        assert.equal((await get('/files/digits.txt', { 'if-modified-since': lastModified })).statusCode, 304);
        assert.equal((await get('/files/digits.txt', { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).statusCode, 200);
      });

      for (const [range, body, contentRange] of [
        ['bytes=0-4', '01234', 'bytes 0-4/20'],
        ['bytes=15-', 'fghij', 'bytes 15-19/20'],
        ['bytes=-3', 'hij', 'bytes 17-19/20'],
        ['bytes=18-100', 'ij', 'bytes 18-19/20'],
      ]) {
        test(`Range ${range} answers 206 with ${contentRange}`, async () => {
          const res = await get('/files/digits.txt', { range });
          assert.equal(res.statusCode, 206);
          assert.equal(res.body, body);
          assert.equal(res.headers['content-range'], contentRange);
          assert.equal(res.headers['content-length'], String(body.length));
        });
      }

      test('a Range past the end is 416 with a JSON error and Content-Range bytes */size', async () => {
        const res = await get('/files/digits.txt', { range: 'bytes=20-30' });
        assertV1Error(res, 416, 'RangeNotSatisfiableError');
        assert.equal(res.headers['content-range'], 'bytes */20');
      });

      test('a Range with an If-Range that no longer matches answers the whole file', async () => {
        const res = await get('/files/digits.txt', { range: 'bytes=0-4', 'if-range': '"old-version"' });
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, CONTENT);
        const current = await get('/files/digits.txt', { range: 'bytes=0-4', 'if-range': `"${sha256(CONTENT)}"` });
        assert.equal(current.statusCode, 206);
      });

      test('HEAD answers the headers of GET without a body', async () => {
        const res = await get('/files/digits.txt', {}, 'HEAD');
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, '');
        assert.equal(res.headers['content-length'], String(CONTENT.length));
        assert.equal(res.headers.etag, `"${sha256(CONTENT)}"`);
      });

      test('a missing file is 404 with a JSON error', async () => {
        assertV1Error(await get('/files/not-there.txt'), 404, 'DoesNotExistError');
      });

      for (const url of [
        '/files/..%2f..%2fsite_config.json',
        '/files/../site_config.json',
        '/files/..%2fprivate%2ffiles%2fsecret.txt',
        '/files/%2e%2e%2f%2e%2e%2fsite_config.json',
        '/files/..%5c..%5csite_config.json',
        '/private/files/..%2f..%2fsite_config.json',
      ]) {
        test(`${url} never leaves the files folder: 404`, async () => {
          const res = await get(url, { authorization: t.adminAuth });
          assert.ok(res.statusCode === 404, `status ${res.statusCode}: ${res.body.slice(0, 200)}`);
          assert.ok(!res.body.includes('encryption_key'));
        });
      }

      test('a private file is not reachable under /files/', async () => {
        assertV1Error(await get('/files/secret.txt'), 404, 'DoesNotExistError');
      });
    });

    describe('private files', () => {
      test('are served to their owner, with private caching', async () => {
        const res = await get(privateUrl, owner.headers);
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, 'owner only');
        assert.equal(res.headers['cache-control'], 'private, no-cache');
        assert.equal(res.headers.etag, `"${sha256('owner only')}"`);
      });

      test('are served to System Managers and the Administrator', async () => {
        assert.equal((await get(privateUrl, manager.headers)).statusCode, 200);
        assert.equal((await get(privateUrl, { authorization: t.adminAuth })).statusCode, 200);
      });

      test('are 403 for another signed-in user', async () => {
        assertV1Error(await get(privateUrl, stranger.headers), 403, 'PermissionError');
      });

      test('are 403 for Guest', async () => {
        assertV1Error(await get(privateUrl), 403, 'PermissionError');
      });

      test('attached to a document are served to anyone who may read that document', async () => {
        const res = await get(attachedUrl, stranger.headers);
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, 'meeting minutes');
      });

      test('support ranges like public ones', async () => {
        const res = await get(privateUrl, { ...owner.headers, range: 'bytes=0-4' });
        assert.equal(res.statusCode, 206);
        assert.equal(res.body, 'owner');
      });

      test('a missing private file answers as a forbidden one: 403 for a signed-in user and for Guest', async () => {
        assertV1Error(await get('/private/files/none.txt', owner.headers), 403, 'PermissionError');
        assertV1Error(await get('/private/files/none.txt'), 403, 'PermissionError');
      });
    });
  });
}
