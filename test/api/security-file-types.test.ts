import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { fileOf, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Issue 28, item 2 (docs/security.md "Files", docs/files.md "Serving"): a file a user uploads is
 * served from the origin of /app, so a script or stylesheet among them must never load as one
 * there (`<script src="/files/x.js">` under `script-src 'self'`). Only an allow-list of types is
 * served inline; everything else is a sandboxed download of application/octet-stream.
 */

const SCRIPT = "fetch('/api/method/fw.core.doctype.user.user.generate_keys', { method: 'POST' })";
const ACTIVE: ReadonlyArray<readonly [string, string]> = [
  ['steal.js', SCRIPT],
  ['steal.mjs', `export default ${SCRIPT}`],
  ['steal.cjs', SCRIPT],
  ['look.css', 'body { background: url(/api/method/logout) }'],
  ['page.html', `<script>${SCRIPT}</script>`],
  ['page.htm', `<script>${SCRIPT}</script>`],
  ['page.xhtml', `<html xmlns="http://www.w3.org/1999/xhtml"><script>${SCRIPT}</script></html>`],
  ['drawing.svg', `<svg xmlns="http://www.w3.org/2000/svg"><script>${SCRIPT}</script></svg>`],
  ['feed.xml', `<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">${SCRIPT}</x:script>`],
  ['data.json', '{"a": 1}'],
  ['worker.wasm', '\0asm'],
  ['manifest.webmanifest', '{}'],
  ['no-extension', SCRIPT],
  ['odd.unknownext', SCRIPT],
];
const INLINE: ReadonlyArray<readonly [string, string]> = [
  ['notes.txt', 'text/plain; charset=utf-8'],
  ['photo.png', 'image/png'],
  ['scan.pdf', 'application/pdf'],
  ['clip.mp4', 'video/mp4'],
];

function assertDownload(res: LightMyRequestResponse, name: string): void {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/octet-stream', `${name} is never served as its own type`);
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="/);
  assert.ok(String(res.headers['content-disposition']).includes(encodeURIComponent(name)));
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.match(String(res.headers['content-security-policy']), /^sandbox; default-src 'none'/);
}

for (const dialect of testDialects()) {
  describe(`uploaded files never serve script or style from the app's origin (${dialect.name})`, () => {
    let t: TestSite;
    let owner: SignedInUser;
    const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url, headers });

    before(async () => {
      t = await startTestSite(dialect);
      owner = await signUp(t, 'uploader@example.com');
    });
    after(() => t.close());

    for (const [name, content] of ACTIVE) {
      test(`${name}, public or private, is a sandboxed octet-stream download (GET, HEAD and ranges alike)`, async () => {
        // Unique bytes per file: the same bytes uploaded again would reuse the first file's URL.
        const bytes = `${content}\n${name}`;
        const publicUrl = fileOf(await uploadFile(t, name, bytes, {}, owner)).file_url;
        const privateUrl = fileOf(await uploadFile(t, `private-${name}`, bytes, { is_private: '1' }, owner)).file_url;
        assert.equal(publicUrl, `/files/${name}`);
        const publicAnswer = await get(publicUrl);
        assertDownload(publicAnswer, name);
        assert.equal(publicAnswer.body, bytes, 'the bytes are served unchanged');
        assertDownload(await get(publicUrl, {}, 'HEAD'), name);
        const ranged = await get(publicUrl, { range: 'bytes=0-1' });
        assert.equal(ranged.statusCode, 206);
        assert.equal(ranged.headers['content-type'], 'application/octet-stream');
        assert.match(String(ranged.headers['content-disposition']), /^attachment/);
        assertDownload(await get(privateUrl, owner.headers), `private-${name}`);
      });
    }

    for (const [name, type] of INLINE) {
      test(`${name} is shown in place as ${type}, not as a download`, async () => {
        const url = fileOf(await uploadFile(t, name, `bytes of ${name}`, {}, owner)).file_url;
        const res = await get(url);
        assert.equal(res.headers['content-type'], type);
        assert.equal(res.headers['content-disposition'], undefined);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      });
    }

    test('the extension decides without regard to case, and any name makes a well-formed header', async () => {
      const upper = fileOf(await uploadFile(t, 'LOUD.JS', `${SCRIPT} // loud`, {}, owner)).file_url;
      assert.equal(upper, '/files/LOUD.JS');
      assertDownload(await get(upper), 'LOUD.JS');
      const quoted = fileOf(await uploadFile(t, "it's (1) é.js", `${SCRIPT} // quoted`, {}, owner));
      const res = await get(encodeURI(String(quoted.file_url)));
      assert.equal(res.headers['content-type'], 'application/octet-stream');
      const disposition = String(res.headers['content-disposition']);
      assert.match(disposition, /^attachment; filename="[^"\\]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
      assert.equal(disposition.split('"')[1], "it's (1) _.js", 'plain ASCII in filename');
      assert.equal(decodeURIComponent(disposition.split("''")[1]), "it's (1) é.js", 'the exact name in filename*');
    });
  });
}
