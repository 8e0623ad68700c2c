import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { fileOf, fileRowCount, filesOnDisk, postParts, signUp, storedText, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Identical bytes across owners (docs/security.md, "Files"): an upload never answers with another
 * user's File (its URL names it), deleting one user's File never takes bytes another File uses, and
 * a private file the caller may not read answers exactly as a missing one.
 */

for (const dialect of testDialects()) {
  describe(`file deduplication across owners (${dialect.name})`, () => {
    let t: TestSite;
    let alice: SignedInUser;
    let mallory: SignedInUser;

    before(async () => {
      t = await startTestSite(dialect);
      alice = await signUp(t, 'alice.dedupe@example.com');
      mallory = await signUp(t, 'mallory.dedupe@example.com');
    });
    after(() => t.close());

    const download = (url: string, who: SignedInUser) => t.app.inject({ method: 'GET', url, headers: who.headers });

    test("uploading bytes identical to another user's private file never answers with that file", async () => {
      const secret = `alice's payroll ${Math.random()}`;
      const theirs = fileOf(await uploadFile(t, 'payroll-2026.pdf', secret, { is_private: '1' }, alice));
      const mine = fileOf(await uploadFile(t, 'guess.pdf', secret, { is_private: '1' }, mallory));
      assert.notEqual(mine.file_url, theirs.file_url);
      assert.ok(!String(mine.file_url).includes('payroll'), "the answer does not name the other user's file");
      assert.equal(mine.file_name, 'guess.pdf');
      assert.equal(mine.owner, mallory.name);
      // Each reads their own, and the other's stays closed to the guesser.
      assert.equal((await download(mine.file_url, mallory)).body, secret);
      assert.equal((await download(theirs.file_url, alice)).body, secret);
      assert.equal((await download(theirs.file_url, mallory)).statusCode, 403);
    });

    test("identical public bytes of another user are stored again under the uploader's own name", async () => {
      const content = `shared poster ${Math.random()}`;
      const theirs = fileOf(await uploadFile(t, 'alice-poster.png', content, { is_private: '0' }, alice));
      const mine = fileOf(await uploadFile(t, 'poster.png', content, { is_private: '0' }, mallory));
      assert.notEqual(mine.file_url, theirs.file_url);
      assert.equal(mine.file_url, '/files/poster.png');
    });

    test('deleting one File keeps the bytes another File of the same content still uses', async () => {
      const content = `twice ${Math.random()}`;
      const first = fileOf(await uploadFile(t, 'twice-a.txt', content, {}, alice));
      const second = fileOf(await uploadFile(t, 'twice-b.txt', content, {}, alice));
      assert.equal(second.file_url, first.file_url, 'the same owner shares storage');
      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/resource/File/${first.name}`, headers: alice.headers });
      assert.equal(deleted.statusCode, 202, deleted.body);
      assert.equal(await storedText(t.site, 'files/twice-a.txt'), content);
      const last = await t.app.inject({ method: 'DELETE', url: `/api/resource/File/${second.name}`, headers: alice.headers });
      assert.equal(last.statusCode, 202, last.body);
      assert.ok(!(await filesOnDisk(t.site)).includes('public/twice-a.txt'), 'the last File took its bytes with it');
    });

    test("registering another user's private file_url answers exactly as a missing file, and stores nothing", async () => {
      const theirs = fileOf(await uploadFile(t, 'contract.pdf', `contract ${Math.random()}`, { is_private: '1' }, alice));
      const rows = await fileRowCount(t.site);
      const forbidden = await postParts(t, [{ name: 'file_url', value: theirs.file_url }], mallory);
      const missing = await postParts(t, [{ name: 'file_url', value: '/private/files/no-such-contract.pdf' }], mallory);
      assert.equal(forbidden.statusCode, missing.statusCode);
      assert.equal(forbidden.json().exc_type, missing.json().exc_type);
      const shape = (body: string, url: string) => body.split(url).join('<url>');
      assert.equal(
        shape(forbidden.json()._server_messages ?? '', theirs.file_url),
        shape(missing.json()._server_messages ?? '', '/private/files/no-such-contract.pdf'),
      );
      assert.equal(forbidden.statusCode, 403);
      assert.equal(await fileRowCount(t.site), rows);
      // Downloading: the same answer for a private file that exists and one that does not.
      const servedForbidden = await download(theirs.file_url, mallory);
      const servedMissing = await download('/private/files/no-such-contract.pdf', mallory);
      assert.equal(servedForbidden.statusCode, servedMissing.statusCode);
      assert.equal(servedForbidden.json().exc_type, servedMissing.json().exc_type);
    });
  });
}
