import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/http/app.js';
import { createSite, openSite } from '../../src/site/open-site.js';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { createUser } from '../helpers/permission-users.js';
import { startTestSite } from '../helpers/test-site.js';
import { spawn } from 'node:child_process';
import { freePort } from '../../bench/free-port.js';
import { outputOf, REPO, runBin, spawnBin, stopChild } from '../helpers/fw-bin.js';

// The README's first session, checked against the code: how fw is run, the token it takes, and the
// Book DocType it creates (which docs/api.md continues from).

async function doc(name: string): Promise<string> {
  return readFile(join(REPO, name), 'utf8');
}

/** The shell lines of every ```sh block of a Markdown text. */
function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) lines.push(...block[1].split('\n'));
  return lines;
}

/** The JSON body the first `POST …/api/resource/DocType -d '…'` of a text sends. */
function bookDefinition(markdown: string): Record<string, unknown> {
  const m = /api\/resource\/DocType -d '([\s\S]*?)'\n/.exec(markdown);
  assert.ok(m, 'a DocType POST with -d');
  // The shell passes `\n` inside single quotes through; JSON reads it as a newline escape.
  return JSON.parse(m[1]) as Record<string, unknown>;
}

describe('README and docs: how fw is run', () => {
  test('every shell example runs fw as `node bin/fw.js`, never a bare `fw` or `npx fw`', async () => {
    const files = ['README.md', ...(await readdir(join(REPO, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const file of files) {
      for (const line of shellLines(await doc(file))) {
        assert.doesNotMatch(line, /^\s*(\$\s*)?fw\s/, `${file}: ${line}`);
        assert.doesNotMatch(line, /npx fw\b/, `${file}: ${line}`);
      }
    }
    const readme = await doc('README.md');
    assert.match(readme, /node bin\/fw\.js serve/);
    assert.match(readme, /node bin\/fw\.js --help/);
  });

  test('the token line of the README and docs/api.md is what `user keys` prints', async () => {
    const line = 'AUTH="Authorization: token $(node bin/fw.js user keys Administrator)"';
    assert.ok(shellLines(await doc('README.md')).includes(line));
    assert.ok(shellLines(await doc('docs/api.md')).includes(line));

    const dir = await mkdtemp(join(tmpdir(), 'fw-readme-'));
    try {
      await createSite(dir, { adminPassword: 'admin' });
      const run = await runBin(['user', 'keys', 'Administrator', '--site', dir]);
      assert.equal(run.code, 0, run.stderr);
      const token = run.stdout.trim();
      assert.match(token, /^[^\s:]+:[^\s:]+$/);
      const site = await openSite(dir);
      const app = await buildApp(site);
      try {
        const res = await app.inject({ url: '/api/method/frappe.auth.get_logged_user', headers: { authorization: `token ${token}` } });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().message, 'Administrator');
      } finally {
        await app.close();
        await site.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('docs/deployment.md says what file storage exists: the FileStore interface, local folders and S3', async () => {
    const deployment = await doc('docs/deployment.md');
    assert.doesNotMatch(deployment, /comes with\s+file uploads/);
    assert.match(deployment, /`FileStore`,\s+`src\/files\/file-store\.ts`/);
    // The interface it names is there, and the two stores it names are the ones a site opens.
    const store = await doc('src/files/file-store.ts');
    assert.match(store, /export interface FileStore/);
    const opener = await doc('src/files/open-file-store.ts');
    assert.match(opener, /new LocalFileStore\(/);
    assert.match(opener, /S3FileStore/);
    assert.match(deployment, /local folders, and an S3-compatible bucket/);
  });

  test('docs/api.md creates the very Book of the README', async () => {
    assert.deepEqual(bookDefinition(await doc('docs/api.md')), bookDefinition(await doc('README.md')));
  });
});

describe("the README's first session, run as written", () => {
  test('against a server started by node bin/fw.js serve, every curl succeeds and Dune is listed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fw-readme-run-'));
    const port = await freePort();
    const server = spawnBin(['serve', '--site', join(dir, 'site'), '--port', String(port)], { FW_ADMIN_PASSWORD: 'admin', FW_LOG_FORMAT: 'json' });
    const log = outputOf(server);
    try {
      await log.waitFor(/Server listening at/, 60_000);
      const block = /## A first session with curl[\s\S]*?```sh\n([\s\S]*?)```/.exec(await doc('README.md'))?.[1];
      assert.ok(block, 'the README has the session');
      // Only the port and the site folder differ from the README (FW_SITE stands in for ./sites/default).
      const script = `set -e\n${block.replaceAll('127.0.0.1:8000', `127.0.0.1:${port}`).replace(/^curl /gm, 'curl -f -S ')}`;
      const shell = spawn('bash', ['-c', script], { cwd: REPO, env: { ...process.env, FW_SITE: join(dir, 'site') }, stdio: ['ignore', 'pipe', 'pipe'] });
      const out = outputOf(shell);
      const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
      assert.equal(code, 0, out.text());
      assert.doesNotMatch(out.text(), /exc_type/);
      assert.match(out.text(), /\{"data":\[\{"title":"Dune","pages":412\}\]\}/);
    } finally {
      await stopChild(server, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    }
  });
});

for (const dialect of testDialects()) {
  describe(`the README's Book DocType (${dialect.name})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const undo of cleanups.reverse()) await undo();
    });

    test('grants System Managers, not only the Administrator; a second POST is 409 as docs/api.md says', async () => {
      const t = await startTestSite(dialect);
      cleanups.push(() => t.close());
      const definition = bookDefinition(await doc('README.md'));
      dataOf(await t.request({ method: 'POST', url: '/api/resource/DocType', body: definition }));
      const again = await t.request({ method: 'POST', url: '/api/resource/DocType', body: definition });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().exc_type, 'DuplicateEntryError');

      const manager = await createUser(t, 'manager@example.com', { roles: ['System Manager'] });
      const created = await t.request({
        method: 'POST',
        url: '/api/resource/Book',
        body: { title: 'Dune', pages: 412 },
        headers: { authorization: manager.auth },
      });
      assert.equal(created.statusCode, 200, created.body);
      const reader = await createUser(t, 'reader@example.com');
      const refused = await t.request({ method: 'GET', url: '/api/resource/Book/Dune', headers: { authorization: reader.auth } });
      assert.equal(refused.statusCode, 403);
    });
  });
}
