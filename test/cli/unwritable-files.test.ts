import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { freePort } from '../../bench/free-port.js';
import { sitePaths } from '../../src/site/site-paths.js';
import { testDialects } from '../helpers/dialects.js';
import { outputOf, runBin, spawnBin, stopChild } from '../helpers/fw-bin.js';
import { Scratch } from './run-cli.js';

// A file folder that cannot be written (here: a file stands where the folder should be, which
// even root cannot write into) is warned about at start, and uploads answer 503 with the cause in
// the log, never a 500 (docs/files.md).

async function upload(base: string, auth: string, isPrivate: boolean): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'note.txt');
  form.append('is_private', isPrivate ? '1' : '0');
  return fetch(`${base}/api/method/upload_file`, { method: 'POST', headers: { authorization: auth }, body: form });
}

for (const dialect of testDialects()) {
  describe(`node bin/fw.js serve with a file folder that cannot be written (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    after(() => scratch.dispose());

    for (const which of ['publicFiles', 'privateFiles'] as const) {
      test(`${which === 'publicFiles' ? 'public' : 'private'}/files: a warning at start, uploads answer 503 ServiceUnavailableError`, async () => {
        const dir = await scratch.site('site');
        const keys = await runBin(['user', 'keys', 'Administrator', '--site', dir]);
        assert.equal(keys.code, 0, keys.stderr);
        const auth = `token ${keys.stdout.trim()}`;
        const folder = sitePaths(dir)[which];
        await rm(folder, { recursive: true });
        await writeFile(folder, 'not a folder');

        const port = await freePort();
        const child = spawnBin(['serve', '--site', dir, '--port', String(port)], { FW_LOG_FORMAT: 'json' });
        const out = outputOf(child);
        try {
          await out.waitFor(/Server listening at/, 60_000);
          assert.match(
            out.text(),
            new RegExp(`warning: ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be written .*uploads will be refused with 503`),
          );
          const base = `http://127.0.0.1:${port}`;
          // Staging goes to private/files: with only public/files broken, private uploads still work.
          for (const isPrivate of [false, true]) {
            const res = await upload(base, auth, isPrivate);
            const body = (await res.json()) as { exc_type?: string; exception?: string };
            const broken = which === 'privateFiles' || !isPrivate;
            if (!broken) {
              assert.equal(res.status, 200, JSON.stringify(body));
              continue;
            }
            assert.equal(res.status, 503, JSON.stringify(body));
            assert.equal(body.exc_type, 'ServiceUnavailableError');
            assert.match(String(body.exception), /cannot store files right now/);
            assert.doesNotMatch(String(body.exception), new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
          }
          await out.waitFor(/"msg":"files cannot be written to [^"]*: E[A-Z]+/, 10_000);
          assert.doesNotMatch(out.text(), /"statusCode":500/);
        } finally {
          assert.equal(await stopChild(child, 'SIGTERM'), 0);
        }
        // Nothing half-written was left next to the site.
        assert.deepEqual(
          (await readdir(sitePaths(dir).root)).filter((f) => f.startsWith('.upload-')),
          [],
        );
      });
    }
  });
}
