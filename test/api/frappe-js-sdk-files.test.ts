import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FrappeApp } from 'frappe-js-sdk';
import { testDialects } from '../helpers/dialects.js';
import { sha256 } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * frappe-js-sdk's `file().uploadFile` over real HTTP: axios sends a real multipart body built from
 * a WHATWG FormData with a File (Node 20 globals), exactly as a browser would.
 */

interface UploadedFileDoc {
  name: string;
  file_name: string;
  file_url: string;
  is_private: number;
  file_size: number;
  content_hash: string;
  folder: string;
  attached_to_doctype?: string;
  attached_to_name?: string;
}

for (const dialect of testDialects()) {
  describe(`frappe-js-sdk file uploads (${dialect.name})`, () => {
    let t: TestSite;
    let url: string;
    let app: FrappeApp;
    before(async () => {
      t = await startTestSite(dialect);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const token = t.adminAuth.slice('token '.length);
      app = new FrappeApp(url, { useToken: true, token: () => token, type: 'token' });
    });
    after(() => t.close());

    test('uploadFile stores a public file and answers the File document under message', async () => {
      const content = 'uploaded through the SDK';
      const res = await app.file().uploadFile(new File([content], 'sdk.txt', { type: 'text/plain' }), { isPrivate: false, folder: 'Home' });
      const doc = res.data.message as UploadedFileDoc;
      assert.equal(doc.file_name, 'sdk.txt');
      assert.equal(doc.file_url, '/files/sdk.txt');
      assert.equal(doc.is_private, 0);
      assert.equal(doc.file_size, content.length);
      assert.equal(doc.content_hash, sha256(content));
      const served = await fetch(`${url}${doc.file_url}`);
      assert.equal(served.status, 200);
      assert.equal(await served.text(), content);
    });

    test('uploadFile with isPrivate and a document stores a private attachment', async () => {
      const todo = await app.db().createDoc('ToDo', { description: 'has an attachment' });
      const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
      const res = await app.file().uploadFile(new File([bytes], 'logo.png', { type: 'image/png' }), {
        isPrivate: true,
        doctype: 'ToDo',
        docname: todo.name,
        fieldname: 'description',
      });
      const doc = res.data.message as UploadedFileDoc;
      assert.equal(doc.file_url, '/private/files/logo.png');
      assert.equal(doc.attached_to_doctype, 'ToDo');
      assert.equal(doc.attached_to_name, todo.name);
      const guest = await fetch(`${url}${doc.file_url}`);
      assert.equal(guest.status, 403);
      const admin = await fetch(`${url}${doc.file_url}`, { headers: { authorization: t.adminAuth } });
      assert.equal(admin.status, 200);
      assert.equal(admin.headers.get('content-type'), 'image/png');
      assert.deepEqual(new Uint8Array(await admin.arrayBuffer()), bytes);
    });

    test('uploadFile as Guest rejects with the server status 403', async () => {
      const guest = new FrappeApp(url);
      await assert.rejects(
        guest.file().uploadFile(new File(['x'], 'guest.txt'), { isPrivate: false }),
        (err: { httpStatus?: number; exc_type?: string }) => err.httpStatus === 403 && err.exc_type === 'PermissionError',
      );
    });

    test('uploadFile with only a file_url registers that URL', async () => {
      const res = await app.file().uploadFile(undefined as unknown as File, { file_url: 'https://example.com/brochure.pdf' });
      const doc = res.data.message as UploadedFileDoc;
      assert.equal(doc.file_url, 'https://example.com/brochure.pdf');
      assert.equal(doc.file_name, 'brochure.pdf');
    });
  });
}
