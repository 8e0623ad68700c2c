import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../src/errors/index.js';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { fileOf, fileRowCount, filesOnDisk, postParts, senderHeaders, signUp, uploadFile, type Sender, type SignedInUser } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

for (const dialect of testDialects()) {
  describe(`File lifecycle (${dialect.name})`, () => {
    let t: TestSite;
    let user: SignedInUser;
    let other: SignedInUser;
    before(async () => {
      t = await startTestSite(dialect);
      user = await signUp(t, 'keeper@example.com');
      other = await signUp(t, 'intruder@example.com');
      // A failure after the bytes are stored: the insert's last hook refuses one file name.
      t.site.hooks.on('File', 'after_insert', async ({ doc }, next) => {
        if (doc.file_name === 'explode.txt') throw new ValidationError('refused after the row was written');
        await next();
      });
    });
    after(() => t.close());

    const fileUrl = (path: string) => `/api/resource/File/${encodeURIComponent(path)}`;
    const remove = (name: string, sender: Sender = 'admin') => t.app.inject({ method: 'DELETE', url: fileUrl(name), headers: senderHeaders(t, sender) });
    const onDisk = async (entry: string) => (await filesOnDisk(t.site)).includes(entry);

    test('deleting one of two Files that share stored bytes keeps them; deleting the last removes them', async () => {
      const first = fileOf(await uploadFile(t, 'twin.txt', 'twin bytes'));
      const second = fileOf(await uploadFile(t, 'twin-copy.txt', 'twin bytes'));
      assert.equal(second.file_url, first.file_url);
      assert.equal((await remove(first.name)).statusCode, 202);
      assert.ok(await onDisk('public/twin.txt'), 'bytes kept while a File uses them');
      assert.equal((await remove(second.name)).statusCode, 202);
      assert.ok(!(await onDisk('public/twin.txt')), 'bytes removed with the last File');
    });

    test('deleting a private File removes its bytes', async () => {
      const file = fileOf(await uploadFile(t, 'private-once.txt', 'once', { is_private: '1' }, user));
      assert.ok(await onDisk('private/private-once.txt'));
      assert.equal((await remove(file.name, user)).statusCode, 202);
      assert.ok(!(await onDisk('private/private-once.txt')));
    });

    test('deleting a File registered for a remote URL leaves the stored files alone', async () => {
      const disk = await filesOnDisk(t.site);
      const file = fileOf(await postParts(t, [{ name: 'file_url', value: 'https://example.com/files/twin.txt' }]));
      assert.equal((await remove(file.name)).statusCode, 202);
      assert.deepEqual(await filesOnDisk(t.site), disk);
    });

    test("another user may not delete someone's File, and its bytes stay", async () => {
      const file = fileOf(await uploadFile(t, 'guarded.txt', 'guarded', { is_private: '1' }, user));
      assertV1Error(await remove(file.name, other), 403, 'PermissionError');
      assert.ok(await onDisk('private/guarded.txt'));
    });

    test('a failure after the bytes were stored removes them and stores no File', async () => {
      const rows = await fileRowCount(t.site);
      const disk = await filesOnDisk(t.site);
      assertV1Error(await uploadFile(t, 'explode.txt', 'short-lived', { is_private: '1' }), 417, 'ValidationError');
      assert.equal(await fileRowCount(t.site), rows);
      assert.deepEqual(await filesOnDisk(t.site), disk);
    });

    describe('File documents written through /api/resource/File', () => {
      test("cannot point at another user's private file", async () => {
        const secret = fileOf(await uploadFile(t, 'diary.txt', 'dear diary', { is_private: '1' }, user));
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/resource/File',
          headers: senderHeaders(t, other),
          payload: { file_url: secret.file_url, file_name: 'mine-now.txt' },
        });
        assertV1Error(res, 403, 'PermissionError');
        assertV1Error(await t.app.inject({ method: 'GET', url: secret.file_url, headers: other.headers }), 403, 'PermissionError');
      });

      test('take size and hash from the stored file, not from the client', async () => {
        const original = fileOf(await uploadFile(t, 'facts.txt', 'real facts'));
        const res = await t.request({
          method: 'POST',
          url: '/api/resource/File',
          body: { file_url: '/files/facts.txt', file_size: 999999, content_hash: 'forged', is_private: 1 },
        });
        assert.equal(res.statusCode, 200, res.body);
        const doc = res.json().data;
        assert.equal(doc.file_size, original.file_size);
        assert.equal(doc.content_hash, original.content_hash);
        assert.equal(doc.is_private, 0);
      });

      test('keep their file_url once stored: changing it is 417', async () => {
        const file = fileOf(await uploadFile(t, 'fixed.txt', 'fixed'));
        const res = await t.request({ method: 'PUT', url: fileUrl(file.name), body: { file_url: '/files/other.txt' } });
        assertV1Error(res, 417, 'CannotChangeConstantError');
      });

      test('ignore client changes to size and hash on save', async () => {
        const file = fileOf(await uploadFile(t, 'steady.txt', 'steady'));
        const folder = await t.request({ method: 'POST', url: '/api/resource/File', body: { is_folder: 1, file_name: 'Moved', folder: 'Home' } });
        assert.equal(folder.statusCode, 200, folder.body);
        const res = await t.request({ method: 'PUT', url: fileUrl(file.name), body: { file_size: 1, content_hash: 'x', folder: 'Home/Moved' } });
        assert.equal(res.statusCode, 200, res.body);
        const doc = res.json().data;
        assert.equal(doc.file_size, file.file_size);
        assert.equal(doc.content_hash, file.content_hash);
        assert.equal(doc.folder, 'Home/Moved');
      });

      test('cannot move to a folder path that escapes Home: 417', async () => {
        const file = fileOf(await uploadFile(t, 'stays.txt', 'stays'));
        const res = await t.request({ method: 'PUT', url: fileUrl(file.name), body: { folder: 'Home/../../etc' } });
        assertV1Error(res, 417, 'ValidationError');
        const read = await t.request({ method: 'GET', url: fileUrl(file.name) });
        assert.equal(read.json().data.folder, 'Home');
      });
    });
  });
}
