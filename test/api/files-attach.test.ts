import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import {
  fileOf,
  fileRowCount,
  filesOnDisk,
  postParts,
  senderHeaders,
  sha256,
  signUp,
  storedBytes,
  storedText,
  uploadFile,
  type SignedInUser,
} from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/** A DocType everyone may read, only System Managers may write. */
const READ_ONLY = 'Attach Read Only';
/** A DocType only System Managers may see. */
const HIDDEN = 'Attach Hidden';
/** A DocType everyone may read and write, with an Attach field. */
const BOARD = 'Attach Board';

const NO_RIGHTS = { write: 0, create: 0, delete: 0, report: 0, export: 0, share: 0, print: 0, email: 0 };

for (const dialect of testDialects()) {
  describe(`attaching and registering files (${dialect.name})`, () => {
    let t: TestSite;
    let user: SignedInUser;
    let other: SignedInUser;
    let readOnlyDoc: string;
    let boardDoc: string;
    before(async () => {
      t = await startTestSite(dialect);
      const fields = [
        { fieldname: 'title', fieldtype: 'Data' },
        { fieldname: 'attachment', fieldtype: 'Attach' },
      ];
      for (const [name, permissions] of [
        [READ_ONLY, [{ role: 'System Manager' }, { role: 'All', read: 1, ...NO_RIGHTS }]],
        [HIDDEN, [{ role: 'System Manager' }]],
        [BOARD, [{ role: 'System Manager' }, { role: 'All' }]],
      ] as const) {
        const res = await t.request({ method: 'POST', url: '/api/resource/DocType', body: { name, fields, permissions } });
        assert.equal(res.statusCode, 200, res.body);
      }
      const insert = async (doctype: string) => {
        const res = await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(doctype)}`, body: { title: 'x' } });
        assert.equal(res.statusCode, 200, res.body);
        return String(res.json().data.name);
      };
      readOnlyDoc = await insert(READ_ONLY);
      boardDoc = await insert(BOARD);
      user = await signUp(t, 'attacher@example.com');
      other = await signUp(t, 'bystander@example.com');
    });
    after(() => t.close());

    async function assertNothingStored(run: () => Promise<void>): Promise<void> {
      const rows = await fileRowCount(t.site);
      const disk = await filesOnDisk(t.site);
      await run();
      assert.equal(await fileRowCount(t.site), rows, 'no File row was added');
      assert.deepEqual(await filesOnDisk(t.site), disk, 'no file was left on disk');
    }

    describe('upload_file with doctype and docname', () => {
      test('attaches the File to a document the user may write, with the field name', async () => {
        const fields = { doctype: BOARD, docname: boardDoc, fieldname: 'attachment', is_private: '1' };
        const file = fileOf(await uploadFile(t, 'board.txt', 'board bytes', fields, user));
        assert.equal(file.attached_to_doctype, BOARD);
        assert.equal(file.attached_to_name, boardDoc);
        assert.equal(file.attached_to_field, 'attachment');
        assert.equal(file.folder, 'Home');
      });

      test('is 403 for a document the user may read but not write, and the uploaded bytes are taken back', async () => {
        await assertNothingStored(async () => {
          const res = await uploadFile(t, 'refused.txt', 'refused bytes', { doctype: READ_ONLY, docname: readOnlyDoc }, user);
          assertV1Error(res, 403, 'PermissionError');
        });
      });

      test('is 404 for a missing document of a DocType the user may read', async () => {
        await assertNothingStored(async () => {
          const res = await uploadFile(t, 'nowhere.txt', 'nowhere bytes', { doctype: READ_ONLY, docname: 'no-such-doc' }, user);
          assertV1Error(res, 404, 'DoesNotExistError');
        });
      });

      test('is 403 for a missing document of a DocType the user may not read, so existence does not leak', async () => {
        await assertNothingStored(async () => {
          const res = await uploadFile(t, 'hidden.txt', 'hidden bytes', { doctype: HIDDEN, docname: 'no-such-doc' }, user);
          assertV1Error(res, 403, 'PermissionError');
        });
      });
    });

    describe('upload_file with file_url', () => {
      test('registers an existing public file: a new File with its URL, size and hash', async () => {
        const original = fileOf(await uploadFile(t, 'shared.txt', 'shared bytes'));
        const file = fileOf(await postParts(t, [{ name: 'file_url', value: '/files/shared.txt' }], user));
        assert.notEqual(file.name, original.name);
        assert.equal(file.file_url, '/files/shared.txt');
        assert.equal(file.file_name, 'shared.txt');
        assert.equal(file.file_size, original.file_size);
        assert.equal(file.content_hash, sha256('shared bytes'));
        assert.equal(file.is_private, 0);
      });

      test('registers a remote http(s) URL as a public File named after its last path part', async () => {
        const file = fileOf(
          await postParts(t, [
            { name: 'file_url', value: 'https://example.com/docs/Guide%20v2.pdf' },
            { name: 'is_private', value: '1' },
          ]),
        );
        assert.equal(file.file_url, 'https://example.com/docs/Guide%20v2.pdf');
        assert.equal(file.file_name, 'Guide v2.pdf');
        assert.equal(file.file_type, 'PDF');
        assert.equal(file.is_private, 0);
      });

      test('takes file_name for the registered URL when given', async () => {
        const parts = [
          { name: 'file_url', value: 'https://example.com/a' },
          { name: 'file_name', value: 'Report.csv' },
        ];
        assert.equal(fileOf(await postParts(t, parts)).file_name, 'Report.csv');
      });

      for (const [url, status, excType] of [
        ['/files/never-uploaded.txt', 417, 'ValidationError'],
        ['/files/../site_config.json', 417, 'ValidationError'],
        ['javascript:alert(1)', 417, 'InvalidURLError'],
        ['site_config.json', 417, 'InvalidURLError'],
      ] as const) {
        test(`refuses ${url} with ${status} ${excType}`, async () => {
          await assertNothingStored(async () => {
            assertV1Error(await postParts(t, [{ name: 'file_url', value: url }]), status, excType);
          });
        });
      }

      test("refuses another user's private file with 403, and lets its owner register it again", async () => {
        const own = fileOf(await uploadFile(t, 'mine.txt', 'my private bytes', { is_private: '1' }, user));
        await assertNothingStored(async () => {
          assertV1Error(await postParts(t, [{ name: 'file_url', value: own.file_url }], other), 403, 'PermissionError');
        });
        const again = fileOf(await postParts(t, [{ name: 'file_url', value: own.file_url }], user));
        assert.equal(again.is_private, 1);
        assert.equal(again.content_hash, own.content_hash);
      });
    });

    describe('fw.client.attach_file', () => {
      const call = (args: Record<string, unknown>, sender: 'admin' | SignedInUser = user, method: 'POST' | 'GET' = 'POST') =>
        t.app.inject({
          method,
          url: '/api/method/frappe.client.attach_file',
          headers: { ...senderHeaders(t, sender), 'content-type': 'application/json' },
          ...(method === 'POST' ? { payload: args } : {}),
        });

      test('stores base64 filedata as a File attached to the document and sets the docfield', async () => {
        const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
        const res = await call({
          filename: 'raw.bin',
          filedata: bytes.toString('base64'),
          decode_base64: 1,
          doctype: BOARD,
          docname: boardDoc,
          docfield: 'attachment',
          is_private: 1,
        });
        const file = fileOf(res);
        assert.equal(file.file_url, '/private/files/raw.bin');
        assert.equal(file.attached_to_field, 'attachment');
        assert.equal(file.folder, 'Home/Attachments');
        assert.equal(file.file_size, bytes.length);
        assert.deepEqual(await storedBytes(t.site, 'private/files/raw.bin'), bytes);
        const doc = await t.request({ method: 'GET', url: `/api/resource/${encodeURIComponent(BOARD)}/${boardDoc}` });
        assert.equal(doc.json().data.attachment, '/private/files/raw.bin');
      });

      test('stores filedata as text without decode_base64', async () => {
        const file = fileOf(await call({ filename: 'plain.txt', filedata: 'plain words', doctype: BOARD, docname: boardDoc }));
        assert.equal(await storedText(t.site, `files/${file.file_name}`), 'plain words');
      });

      test('refuses filedata that is not base64 with 417', async () => {
        await assertNothingStored(async () => {
          const res = await call({ filename: 'bad.bin', filedata: 'not base64!', decode_base64: 1, doctype: BOARD, docname: boardDoc });
          assertV1Error(res, 417, 'ValidationError');
        });
      });

      test('refuses a document the user may not write with 403 and keeps nothing', async () => {
        await assertNothingStored(async () => {
          const res = await call({ filename: 'ro.txt', filedata: 'ro', doctype: READ_ONLY, docname: readOnlyDoc });
          assertV1Error(res, 403, 'PermissionError');
        });
      });

      test('takes POST or PUT only: GET is 403', async () => {
        assertV1Error(await call({}, user, 'GET'), 403, 'PermissionError');
      });
    });
  });
}
