import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { buildApp } from '../../src/http/app.js';
import { openSite } from '../../src/site/open-site.js';
import { parseFileStorageConfig, type S3FileStorage } from '../../src/files/file-storage-config.js';
import { s3Client, S3FileStore } from '../../src/files/s3-file-store.js';
import { testDialects } from '../helpers/dialects.js';
import { fileOf, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { runCli, Scratch } from './run-cli.js';

const fail = (message: string): never => {
  throw new Error(message);
};

for (const dialect of testDialects()) {
  describe(`backup and restore of a site whose files are in a bucket (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    let s3: S3Server;
    let t: TestSite;
    let storage: S3FileStorage;
    let owner: SignedInUser;
    let archive: string;
    before(async () => {
      s3 = await startS3Server();
      const raw = s3.fileStorage();
      storage = parseFileStorageConfig(raw, fail) as S3FileStorage;
      t = await startTestSite(dialect, { fileStorage: raw });
      owner = await signUp(t, 'owner@example.com');
      fileOf(await uploadFile(t, 'hello.txt', 'public hello'));
      fileOf(await uploadFile(t, 'secret.txt', 'owner only', { is_private: '1' }, owner));
      archive = join(await scratch.folder('archives'), 'site.tar.gz');
    });
    after(async () => {
      await t?.close();
      await scratch.dispose();
      await s3?.close();
    });

    test("the backup holds the bucket's files in the folders a local site has", async () => {
      const run = await runCli(['backup', '--site', t.site.paths.root, '--out', archive]);
      assert.equal(run.code, 0, run.err);
      const { stdout } = await promisify(execFile)('tar', ['-tzf', archive]);
      const entries = stdout.split('\n');
      assert.ok(entries.includes('public/files/hello.txt'), stdout);
      assert.ok(entries.includes('private/files/secret.txt'), stdout);
      const local = [...(await readdir(t.site.paths.publicFiles).catch(() => [])), ...(await readdir(t.site.paths.privateFiles).catch(() => []))];
      assert.deepEqual(local, [], 'nothing was written into the site folder');
    });

    test('restore puts exactly the archived files back into the bucket', async () => {
      const client = s3Client(storage);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/private/files/secret.txt` }));
        await client.send(new PutObjectCommand({ Bucket: storage.bucket, Key: `${storage.prefix}/public/files/stray.txt`, Body: 'after the backup' }));
      } finally {
        client.destroy();
      }
      const target = await scratch.folder('restored');
      const run = await runCli(['restore', archive, '--site', target, '--db', await scratch.databaseUrl()]);
      assert.equal(run.code, 0, run.err);

      const store = new S3FileStore(storage);
      const keys: string[] = [];
      for await (const key of store.keys()) keys.push(key);
      store.close();
      assert.deepEqual(keys.sort(), ['files/hello.txt', 'private/files/secret.txt']);

      const site = await openSite(target);
      const app = await buildApp(site);
      try {
        assert.equal((await app.inject({ method: 'GET', url: '/files/hello.txt' })).body, 'public hello');
        const login = await app.inject({ method: 'POST', url: '/api/method/login', payload: { usr: owner.name, pwd: 'File-Test-Secret-42' } });
        const sid = login.cookies.find((c) => c.name === 'sid')?.value ?? '';
        const secret = await app.inject({ method: 'GET', url: '/private/files/secret.txt', cookies: { sid } });
        assert.equal(secret.body, 'owner only');
        assert.equal((await app.inject({ method: 'GET', url: '/private/files/secret.txt' })).statusCode, 403);
      } finally {
        await app.close();
        await site.close();
      }
    });
  });
}
