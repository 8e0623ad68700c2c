import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '../../src/files/s3-file-store.js';
import { parseFileStorageConfig, type S3FileStorage } from '../../src/files/file-storage-config.js';
import { freePort } from '../../bench/free-port.js';
import { testDialects } from '../helpers/dialects.js';
import { uploadForm } from '../helpers/multipart-form.js';
import { fileOf, fileRowCount, sha256, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { reopenWithConfig, type ReopenedSite } from '../helpers/reopen-with-config.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

const TTL = 30;

/** The bucket's object names under a site's prefix, relative to it. */
async function objectsOf(storage: S3FileStorage): Promise<string[]> {
  const client = s3Client(storage);
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: `${storage.prefix}/` }));
    return (listed.Contents ?? []).map((o) => String(o.Key).slice(storage.prefix.length + 1)).sort();
  } finally {
    client.destroy();
  }
}

async function objectBytes(storage: S3FileStorage, name: string): Promise<string> {
  const client = s3Client(storage);
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/${name}` }));
    return await (got.Body as { transformToString(): Promise<string> }).transformToString();
  } finally {
    client.destroy();
  }
}

async function objectExists(storage: S3FileStorage, name: string): Promise<boolean> {
  const client = s3Client(storage);
  try {
    await client.send(new HeadObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/${name}` }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/** What the site's local file folders hold: nothing, with a bucket. */
async function localFolderEntries(t: TestSite): Promise<string[]> {
  const list = (dir: string) => readdir(dir).catch(() => [] as string[]);
  return [...(await list(t.site.paths.publicFiles)), ...(await list(t.site.paths.privateFiles))];
}

const fail = (message: string): never => {
  throw new Error(message);
};

for (const dialect of testDialects()) {
  describe(`files in an S3-compatible bucket (${dialect.name})`, () => {
    let s3: S3Server;
    let t: TestSite;
    let storage: S3FileStorage;
    let redirecting: ReopenedSite;
    let owner: SignedInUser;
    let stranger: SignedInUser;
    let privateUrl: string;
    before(async () => {
      s3 = await startS3Server();
      const raw = s3.fileStorage();
      storage = parseFileStorageConfig(raw, fail) as S3FileStorage;
      t = await startTestSite(dialect, { fileStorage: raw });
      redirecting = await reopenWithConfig(t, {
        file_storage: { ...raw, public_delivery: 'redirect', private_delivery: 'redirect', presign_ttl_s: TTL },
      });
      owner = await signUp(t, 'owner@example.com');
      stranger = await signUp(t, 'stranger@example.com');
      privateUrl = fileOf(await uploadFile(t, 'secret.txt', 'owner only bytes', { is_private: '1' }, owner)).file_url;
    });
    after(async () => {
      await redirecting?.close();
      await t?.close();
      await s3?.close();
    });

    test('an upload goes into the bucket under the prefix, file_url unchanged, nothing on local disk', async () => {
      const file = fileOf(await uploadFile(t, 'notes.txt', 'stored in the bucket'));
      assert.equal(file.file_url, '/files/notes.txt');
      assert.equal(file.content_hash, sha256('stored in the bucket'));
      assert.equal(await objectBytes(storage, 'public/files/notes.txt'), 'stored in the bucket');
      assert.equal(privateUrl, '/private/files/secret.txt');
      assert.equal(await objectBytes(storage, 'private/files/secret.txt'), 'owner only bytes');
      assert.deepEqual(await localFolderEntries(t), []);
      // Staged copies are gone once the answer is sent.
      assert.deepEqual(
        (await objectsOf(storage)).filter((n) => n.startsWith('staging/')),
        [],
      );
      const served = await t.app.inject({ method: 'GET', url: '/files/notes.txt' });
      assert.equal(served.statusCode, 200);
      assert.equal(served.body, 'stored in the bucket');
      assert.equal(served.headers.etag, `"${sha256('stored in the bucket')}"`);
    });

    test('a file larger than one multipart part streams in and out whole', async () => {
      const big = Buffer.alloc(9 * 1024 * 1024 + 17, 7);
      big.write('head', 0);
      const file = fileOf(await uploadFile(t, 'big.bin', big));
      assert.equal(file.file_size, big.length);
      assert.equal(file.content_hash, sha256(big));
      const served = await t.app.inject({ method: 'GET', url: '/files/big.bin' });
      assert.equal(served.statusCode, 200);
      assert.equal(sha256(served.rawPayload), sha256(big));
    });

    test('the same content uploaded twice by one user is stored once', async () => {
      const first = fileOf(await uploadFile(t, 'twice-a.txt', 'same bytes twice', {}, owner));
      const second = fileOf(await uploadFile(t, 'twice-b.txt', 'same bytes twice', {}, owner));
      assert.equal(second.file_url, first.file_url);
      assert.notEqual(second.name, first.name);
      const named = (await objectsOf(storage)).filter((n) => n.startsWith('public/files/twice-'));
      assert.deepEqual(named, ['public/files/twice-a.txt']);
    });

    test('a Range request answers 206 with those bytes from the bucket', async () => {
      fileOf(await uploadFile(t, 'digits.txt', '0123456789'));
      const res = await t.app.inject({ method: 'GET', url: '/files/digits.txt', headers: { range: 'bytes=2-5' } });
      assert.equal(res.statusCode, 206);
      assert.equal(res.body, '2345');
      assert.equal(res.headers['content-range'], 'bytes 2-5/10');
      const tail = await t.app.inject({ method: 'GET', url: '/files/digits.txt', headers: { range: 'bytes=-3' } });
      assert.equal(tail.body, '789');
      const past = await t.app.inject({ method: 'GET', url: '/files/digits.txt', headers: { range: 'bytes=50-' } });
      assert.equal(past.statusCode, 416);
      assert.equal(past.headers['content-range'], 'bytes */10');
    });

    test('a private file streams to its owner and is refused to another user and to Guest', async () => {
      const mine = await t.app.inject({ method: 'GET', url: privateUrl, headers: owner.headers });
      assert.equal(mine.statusCode, 200);
      assert.equal(mine.body, 'owner only bytes');
      const ranged = await t.app.inject({ method: 'GET', url: privateUrl, headers: { ...owner.headers, range: 'bytes=0-4' } });
      assert.equal(ranged.statusCode, 206);
      assert.equal(ranged.body, 'owner');
      for (const headers of [stranger.headers, {}]) {
        const res = await t.app.inject({ method: 'GET', url: privateUrl, headers });
        assert.equal(res.statusCode, 403);
        assert.ok(!res.body.includes('owner only bytes'));
      }
    });

    test('with redirect delivery, another user is refused before any URL is presigned', async () => {
      for (const headers of [stranger.headers, {}]) {
        const res = await redirecting.app.inject({ method: 'GET', url: privateUrl, headers });
        assert.equal(res.statusCode, 403);
        assert.equal(res.headers.location, undefined);
        assert.ok(!/X-Amz-|127\.0\.0\.1|secret\.txt\?/.test(res.body), res.body);
        assert.ok(!Object.values(res.headers).some((v) => String(v).includes('X-Amz-')));
      }
      // A name no File uses: the same refusal, no URL.
      const unknown = await redirecting.app.inject({ method: 'GET', url: '/private/files/nothing-here.txt', headers: owner.headers });
      assert.equal(unknown.statusCode, 403);
      assert.equal(unknown.headers.location, undefined);
    });

    test('with redirect delivery, the owner gets a presigned URL of the configured lifetime, which the bucket honours then refuses', async () => {
      const res = await redirecting.app.inject({ method: 'GET', url: privateUrl, headers: owner.headers });
      assert.equal(res.statusCode, 302);
      assert.equal(res.headers['cache-control'], 'no-store');
      const location = new URL(String(res.headers.location));
      assert.equal(location.origin, s3.endpoint);
      assert.equal(location.pathname, `/${storage.bucket}/${storage.prefix}/private/files/secret.txt`);
      assert.equal(location.searchParams.get('X-Amz-Expires'), String(TTL));
      assert.match(String(location.searchParams.get('response-content-disposition')), /^inline; filename="secret.txt"/);
      const fetched = await fetch(location);
      assert.equal(fetched.status, 200);
      assert.equal(await fetched.text(), 'owner only bytes');

      // The same URL signed longer ago than its lifetime: the bucket refuses it (s3rver checks expiry, not signatures).
      const signedAt = String(location.searchParams.get('X-Amz-Date'));
      const at = new Date(`${signedAt.slice(0, 4)}-${signedAt.slice(4, 6)}-${signedAt.slice(6, 11)}:${signedAt.slice(11, 13)}:${signedAt.slice(13, 15)}Z`);
      const stale = new Date(at.getTime() - (TTL + 1) * 1000).toISOString().replace(/[-:]|\.\d+/g, '');
      location.searchParams.set('X-Amz-Date', stale);
      const expired = await fetch(location);
      assert.equal(expired.status, 403);
      assert.match(await expired.text(), /Request has expired/);
    });

    test('with redirect delivery, a public file redirects too, and a missing one is 404 without a URL', async () => {
      fileOf(await uploadFile(t, 'page.html', '<p>hi</p>'));
      const res = await redirecting.app.inject({ method: 'GET', url: '/files/page.html' });
      assert.equal(res.statusCode, 302);
      const location = new URL(String(res.headers.location));
      // Active content goes out as an attachment: the bucket cannot send fw's sandboxing CSP.
      assert.match(String(location.searchParams.get('response-content-disposition')), /^attachment;/);
      const missing = await redirecting.app.inject({ method: 'GET', url: '/files/never-uploaded.txt' });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.headers.location, undefined);
    });

    test('an object is deleted only when no File references it any more', async () => {
      const a = fileOf(await uploadFile(t, 'shared.txt', 'shared content', {}, owner));
      const b = fileOf(await uploadFile(t, 'shared-again.txt', 'shared content', {}, owner));
      assert.equal(b.file_url, a.file_url);
      const del = (name: string) => t.request({ method: 'DELETE', url: `/api/resource/File/${encodeURIComponent(name)}` });
      assert.equal((await del(a.name)).statusCode, 202);
      assert.ok(await objectExists(storage, 'public/files/shared.txt'), 'still referenced by the second File');
      assert.equal((await t.app.inject({ method: 'GET', url: '/files/shared.txt' })).body, 'shared content');
      assert.equal((await del(b.name)).statusCode, 202);
      assert.equal(await objectExists(storage, 'public/files/shared.txt'), false);
      assert.equal((await t.app.inject({ method: 'GET', url: '/files/shared.txt' })).statusCode, 404);
    });

    test('a bucket that cannot be reached answers 503 ServiceUnavailableError, never a 500, and names no endpoint', async () => {
      const closed = await freePort();
      const down = await reopenWithConfig(t, { file_storage: { ...s3.fileStorage(), endpoint: `http://127.0.0.1:${closed}` } });
      try {
        const form = uploadForm('lost.txt', 'nowhere to go');
        const upload = await down.app.inject({
          method: 'POST',
          url: '/api/method/upload_file',
          payload: form.payload,
          headers: { ...form.headers, authorization: t.adminAuth },
        });
        assert.equal(upload.statusCode, 503, upload.body);
        assert.equal(upload.json().exc_type, 'ServiceUnavailableError');
        assert.ok(!upload.body.includes(String(closed)), upload.body);
        const read = await down.app.inject({ method: 'GET', url: '/files/notes.txt' });
        assert.equal(read.statusCode, 503, read.body);
        assert.equal(await fileRowCount(t.site), await fileRowCount(down.site), 'one database');
        const rows = await t.request({ method: 'GET', url: '/api/resource/File?filters=[["file_name","=","lost.txt"]]' });
        assert.deepEqual(rows.json().data, [], 'no File was stored');
      } finally {
        await down.close();
      }
    });

    test('an upload past max_file_size is 413 and leaves no object behind', async () => {
      const small = await reopenWithConfig(t, { max_file_size: 1024 });
      try {
        const before = await objectsOf(storage);
        const form = uploadForm('huge.bin', Buffer.alloc(4096, 1));
        const res = await small.app.inject({
          method: 'POST',
          url: '/api/method/upload_file',
          payload: form.payload,
          headers: { ...form.headers, authorization: t.adminAuth },
        });
        assert.equal(res.statusCode, 413, res.body);
        assert.deepEqual(await objectsOf(storage), before);
      } finally {
        await small.close();
      }
    });
  });
}
