import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error, assertV2Error } from '../helpers/error-envelope.js';
import { fileOf, fileRowCount, filesOnDisk, postForm, postParts, sha256, signUp, storedText, uploadFile } from '../helpers/file-api.js';
import { uploadForm } from '../helpers/multipart-form.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

let counter = 0;
/** A file name and content no other test uses. */
function fresh(ext = 'txt'): { name: string; content: string } {
  counter += 1;
  return { name: `note-${counter}.${ext}`, content: `content ${counter} ${Math.random()}` };
}

for (const dialect of testDialects()) {
  describe(`upload_file (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    /** Asserts that a refused request changed nothing: same File rows, same files on disk (no temporary ones). */
    async function assertNothingStored(run: () => Promise<void>): Promise<void> {
      const rows = await fileRowCount(t.site);
      const disk = await filesOnDisk(t.site);
      await run();
      assert.equal(await fileRowCount(t.site), rows, 'no File row was added');
      assert.deepEqual(await filesOnDisk(t.site), disk, 'no file was left on disk');
    }

    test('a public upload answers the File document and stores the bytes under /files/', async () => {
      const { name, content } = fresh();
      const file = fileOf(await uploadFile(t, name, content, { is_private: '0' }));
      assert.match(file.name, /^[0-9a-z]{10}$/);
      assert.equal(file.doctype, 'File');
      assert.equal(file.owner, 'Administrator');
      assert.equal(file.file_name, name);
      assert.equal(file.file_url, `/files/${name}`);
      assert.equal(file.is_private, 0);
      assert.equal(file.file_size, Buffer.byteLength(content));
      assert.equal(file.content_hash, sha256(content));
      assert.equal(file.file_type, 'TXT');
      assert.equal(file.folder, 'Home');
      assert.equal(file.is_folder, 0);
      assert.equal(file.docstatus, 0);
      assert.ok(!('attached_to_doctype' in file), 'null fields are left out, as the reference does');
      assert.equal(await storedText(t.site, `files/${name}`), content);
    });

    test('a private upload is stored under /private/files/ and not in the public folder', async () => {
      const { name, content } = fresh('pdf');
      const file = fileOf(await uploadFile(t, name, content, { is_private: '1' }));
      assert.equal(file.is_private, 1);
      assert.equal(file.file_url, `/private/files/${name}`);
      assert.equal(file.file_type, 'PDF');
      assert.equal(await storedText(t.site, `private/files/${name}`), content);
      assert.ok(!(await filesOnDisk(t.site)).includes(`public/${name}`));
    });

    for (const [value, expected] of [
      ['1', 1],
      ['0', 0],
      ['true', 1],
      ['false', 0],
    ] as const) {
      test(`is_private "${value}" stores is_private ${expected}`, async () => {
        const { name, content } = fresh();
        assert.equal(fileOf(await uploadFile(t, name, content, { is_private: value })).is_private, expected);
      });
    }

    test('an is_private that is not a boolean is 417 and stores nothing', async () => {
      await assertNothingStored(async () => {
        const { name, content } = fresh();
        assertV1Error(await uploadFile(t, name, content, { is_private: 'yes' }), 417, 'FrappeTypeError');
      });
    });

    test('neither a file part nor a file_url is 417 MandatoryError with the reference message', async () => {
      await assertNothingStored(async () => {
        const { messages } = assertV1Error(await postParts(t, [{ name: 'is_private', value: '0' }]), 417, 'MandatoryError');
        assert.equal(messages[0].message, 'Fields `file_name` or `file_url` must be set for File');
      });
    });

    test('Guest is refused with 403 and nothing is stored', async () => {
      await assertNothingStored(async () => {
        const { name, content } = fresh();
        assertV1Error(await uploadFile(t, name, content, {}, 'guest'), 403, 'PermissionError');
      });
    });

    test('upload_file takes POST only: PUT is 403', async () => {
      const form = uploadForm('x.txt', 'x');
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/method/upload_file',
        headers: { ...form.headers, authorization: t.adminAuth },
        payload: form.payload,
      });
      assertV1Error(res, 403, 'PermissionError');
    });

    test('any signed-in user may upload, and owns the File', async () => {
      const user = await signUp(t, 'uploader@example.com');
      const { name, content } = fresh();
      assert.equal(fileOf(await uploadFile(t, name, content, {}, user)).owner, 'uploader@example.com');
    });

    test('the v2 route answers the File document under data, and its errors in errors[]', async () => {
      const { name, content } = fresh();
      const form = uploadForm(name, content);
      const ok = await postForm(t, form, { authorization: t.adminAuth }, '/api/v2/method/upload_file');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().data.file_url, `/files/${name}`);
      const refused = await postForm(t, uploadForm(name, content), {}, '/api/v2/method/upload_file');
      assertV2Error(refused, 403, 'PermissionError');
    });

    for (const url of ['/api/method/frappe.handler.upload_file', '/api/v1/method/upload_file']) {
      test(`${url} is the same method`, async () => {
        const { name, content } = fresh();
        const res = await postForm(t, uploadForm(name, content), { authorization: t.adminAuth }, url);
        assert.equal(fileOf(res).file_url, `/files/${name}`);
      });
    }

    test('the legacy POST / with a cmd field uploads too (the Python client)', async () => {
      const { name, content } = fresh();
      const res = await postForm(t, uploadForm(name, content, { cmd: 'upload_file' }), { authorization: t.adminAuth }, '/');
      assert.equal(fileOf(res).file_name, name);
    });

    test('an empty file is stored with file_size 0', async () => {
      const file = fileOf(await uploadFile(t, 'empty.txt', ''));
      assert.equal(file.file_size, 0);
      assert.equal(file.content_hash, sha256(''));
      assert.equal(await storedText(t.site, 'files/empty.txt'), '');
    });

    test('the folder field is kept, for a built-in folder and for a folder File', async () => {
      const { name, content } = fresh();
      assert.equal(fileOf(await uploadFile(t, name, content, { folder: 'Home/Attachments' })).folder, 'Home/Attachments');
      const made = await t.request({ method: 'POST', url: '/api/resource/File', body: { is_folder: 1, file_name: 'Reports', folder: 'Home' } });
      assert.equal(made.statusCode, 200, made.body);
      const next = fresh();
      assert.equal(fileOf(await uploadFile(t, next.name, next.content, { folder: 'Home/Reports' })).folder, 'Home/Reports');
    });

    for (const folder of [
      '../../etc',
      'Home/../..',
      'Home/./x',
      '/Home',
      'Home//x',
      'Home/',
      'Home\\..\\x',
      'Home/a\u0000b',
      'C:/Windows',
      'Elsewhere',
      `Home/${'x'.repeat(300)}`,
    ]) {
      test(`an upload into the folder ${JSON.stringify(folder.slice(0, 40))} is 417 ValidationError and stores nothing`, async () => {
        const { name, content } = fresh();
        await assertNothingStored(async () => {
          assertV1Error(await uploadFile(t, name, content, { folder }), 417, 'ValidationError');
        });
      });
    }

    test('an upload into a folder that does not exist is 417 LinkValidationError and stores nothing', async () => {
      const { name, content } = fresh();
      await assertNothingStored(async () => {
        assertV1Error(await uploadFile(t, name, content, { folder: 'Home/Nowhere' }), 417, 'LinkValidationError');
      });
    });

    test('a folder File cannot be named with a path', async () => {
      const res = await t.request({ method: 'POST', url: '/api/resource/File', body: { is_folder: 1, file_name: '../up', folder: 'Home' } });
      assertV1Error(res, 417, 'ValidationError');
    });

    for (const [raw, cleaned] of [
      ['../../etc/passwd', 'passwd'],
      ['.hidden', 'hidden'],
      ['..\\..\\boot.ini', 'boot.ini'],
      ['a\u0001b.txt', 'ab.txt'],
    ]) {
      test(`an unsafe file name ${JSON.stringify(raw)} is cleaned to ${cleaned}, not refused`, async () => {
        const file = fileOf(await uploadFile(t, raw, `bytes of ${raw}`));
        assert.equal(file.file_name, cleaned);
        assert.equal(file.file_url, `/files/${cleaned}`);
        assert.ok((await filesOnDisk(t.site)).includes(`public/${cleaned}`));
      });
    }

    test('identical content with the same privacy reuses the stored file; each upload gets its own File', async () => {
      const { content } = fresh();
      const first = fileOf(await uploadFile(t, 'same-a.txt', content));
      const second = fileOf(await uploadFile(t, 'same-b.txt', content));
      assert.notEqual(first.name, second.name);
      assert.equal(second.file_url, first.file_url);
      assert.equal(second.file_name, 'same-b.txt');
      assert.equal(second.content_hash, first.content_hash);
      assert.ok(!(await filesOnDisk(t.site)).includes('public/same-b.txt'), 'the second upload stored no copy');
    });

    test('identical content with another privacy is stored again', async () => {
      const { name, content } = fresh();
      const open = fileOf(await uploadFile(t, name, content, { is_private: '0' }));
      const closed = fileOf(await uploadFile(t, name, content, { is_private: '1' }));
      assert.equal(open.file_url, `/files/${name}`);
      assert.equal(closed.file_url, `/private/files/${name}`);
    });

    test("different content under a taken name gets the content hash's last 6 characters appended", async () => {
      fileOf(await uploadFile(t, 'clash.txt', 'first content'));
      const second = fileOf(await uploadFile(t, 'clash.txt', 'second content'));
      const suffix = sha256('second content').slice(-6);
      assert.equal(second.file_name, `clash${suffix}.txt`);
      assert.equal(second.file_url, `/files/clash${suffix}.txt`);
      assert.equal(await storedText(t.site, 'files/clash.txt'), 'first content');
      assert.equal(await storedText(t.site, `files/clash${suffix}.txt`), 'second content');
    });

    describe('with max_file_size 1024', () => {
      let small: Awaited<ReturnType<typeof reopenWithConfig>>;
      before(async () => {
        small = await reopenWithConfig(t, { max_file_size: 1024 });
      });
      after(() => small.close());

      test('an upload over the limit is 413 MaxFileSizeReachedError and leaves nothing on disk or in the database', async () => {
        await assertNothingStored(async () => {
          const res = await postForm(small.app, uploadForm('big.bin', Buffer.alloc(4096, 7), { is_private: '1' }), { authorization: t.adminAuth });
          assertV1Error(res, 413, 'MaxFileSizeReachedError');
        });
      });

      test('an upload of exactly the limit is stored', async () => {
        const res = await postForm(small.app, uploadForm('limit.bin', Buffer.alloc(1024, 1)), { authorization: t.adminAuth });
        assert.equal(fileOf(res).file_size, 1024);
      });
    });
  });
}
