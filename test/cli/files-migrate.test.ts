import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { parseFileStorageConfig, type S3FileStorage } from '../../src/files/file-storage-config.js';
import { s3Client } from '../../src/files/s3-file-store.js';
import { testDialects } from '../helpers/dialects.js';
import { fileOf, filesOnDisk, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { runCli } from './run-cli.js';

const fail = (message: string): never => {
  throw new Error(message);
};

/** Rewrites the site's `file_storage`. */
async function setFileStorage(t: TestSite, value: Record<string, unknown> | undefined): Promise<void> {
  const file = t.site.paths.config;
  const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  if (value === undefined) delete config.file_storage;
  else config.file_storage = value;
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

for (const dialect of testDialects()) {
  describe(`fw files migrate (${dialect.name})`, () => {
    let s3: S3Server;
    let t: TestSite;
    let raw: Record<string, unknown>;
    let storage: S3FileStorage;
    let owner: SignedInUser;
    let stranger: SignedInUser;
    before(async () => {
      s3 = await startS3Server();
      raw = s3.fileStorage();
      storage = parseFileStorageConfig(raw, fail) as S3FileStorage;
      // Local whatever FW_TEST_FILE_BACKEND says: this suite moves files off the disk.
      t = await startTestSite(dialect, { fileStorage: { backend: 'local' } });
      owner = await signUp(t, 'owner@example.com');
      stranger = await signUp(t, 'stranger@example.com');
      fileOf(await uploadFile(t, 'hello.txt', 'public hello'));
      fileOf(await uploadFile(t, 'again.txt', 'public hello'));
      fileOf(await uploadFile(t, 'secret.txt', 'owner only', { is_private: '1' }, owner));
      fileOf(await uploadFile(t, 'big.bin', Buffer.alloc(9 * 1024 * 1024, 3)));
    });
    after(async () => {
      await t?.close();
      await s3?.close();
    });

    test('without bucket settings it refuses and says what to add', async () => {
      const run = await runCli(['files', 'migrate', '--to', 's3', '--site', t.site.paths.root]);
      assert.equal(run.code, 1);
      assert.match(run.err, /has no bucket settings: add "file_storage": \{"backend": "local", "bucket"/);
      const bad = await runCli(['files', 'migrate', '--to', 'gcs', '--site', t.site.paths.root]);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--to must be "s3" or "local"/);
    });

    test('--to s3 copies every file with progress; the site then serves them from the bucket with permissions intact', async () => {
      await setFileStorage(t, { ...raw, backend: 'local' });
      const run = await runCli(['files', 'migrate', '--to', 's3', '--site', t.site.paths.root]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.err, /3 files from .* to s3:\/\/fw-test-files\//);
      assert.match(run.err, /\[\d\/3\] files\/hello\.txt: copied \(12 bytes\)/);
      assert.match(run.out, /3 copied \(\d+ bytes\), 0 already there\. Next: set "backend": "s3"/);

      const onS3 = await reopenWithConfig(t, { file_storage: raw });
      try {
        // Gone from disk, so what answers comes from the bucket.
        await rm(join(t.site.paths.publicFiles, 'hello.txt'));
        const hello = await onS3.app.inject({ method: 'GET', url: '/files/hello.txt' });
        assert.equal(hello.body, 'public hello');
        const big = await onS3.app.inject({ method: 'GET', url: '/files/big.bin' });
        assert.equal(big.rawPayload.length, 9 * 1024 * 1024);
        assert.equal((await onS3.app.inject({ method: 'GET', url: '/private/files/secret.txt', headers: owner.headers })).body, 'owner only');
        assert.equal((await onS3.app.inject({ method: 'GET', url: '/private/files/secret.txt', headers: stranger.headers })).statusCode, 403);
      } finally {
        await onS3.close();
      }
    });

    test('a second run skips what is there, copies what is missing and replaces a copy whose hash differs', async () => {
      const client = s3Client(storage);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/private/files/secret.txt` }));
        await client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/public/files/big.bin`, Body: 'truncated' }));
      } finally {
        client.destroy();
      }
      // hello.txt was removed from disk above; the bucket keeps it, and the source no longer lists it.
      const run = await runCli(['files', 'migrate', '--to', 's3', '--site', t.site.paths.root]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.err, /private\/files\/secret\.txt: copied/);
      assert.match(run.err, /files\/big\.bin: copied/);
      assert.match(run.out, /2 copied \(\d+ bytes\), 0 already there/);
      const again = await runCli(['files', 'migrate', '--to', 's3', '--site', t.site.paths.root]);
      assert.match(again.out, /0 copied \(0 bytes\), 2 already there/);
    });

    test('--to local brings every object back to the folders, checked by hash', async () => {
      await setFileStorage(t, raw);
      for (const name of await filesOnDisk(t.site)) {
        await rm(join(name.startsWith('public/') ? t.site.paths.publicFiles : t.site.paths.privateFiles, name.replace(/^\w+\//, '')));
      }
      const run = await runCli(['files', 'migrate', '--to', 'local', '--site', t.site.paths.root]);
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /3 copied .* Next: set "backend": "local"/);
      assert.deepEqual(await filesOnDisk(t.site), ['private/secret.txt', 'public/big.bin', 'public/hello.txt']);
      assert.equal(await readFile(join(t.site.paths.privateFiles, 'secret.txt'), 'utf8'), 'owner only');
      await setFileStorage(t, undefined);
      const local = await reopenWithConfig(t, {});
      try {
        assert.equal((await local.app.inject({ method: 'GET', url: '/files/hello.txt' })).body, 'public hello');
      } finally {
        await local.close();
      }
    });
  });
}
