import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sitePaths } from '../../src/site/site-paths.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { freePort } from '../../bench/free-port.js';
import { testDialects } from '../helpers/dialects.js';
import { outputOf, runBin, spawnBin, stopChild } from '../helpers/fw-bin.js';
import { Scratch } from './run-cli.js';

// A site is never silently replaced or half-configured: unsupported database URLs, a missing
// database and a broken site_config.json are refused with what to do (docs/configuration.md).

const FORMS = /use sqlite:<file> .* or postgres:\/\/user\[:password\]@host\[:port\]\/database/;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('node bin/fw.js: database URLs that fw cannot use', () => {
  const scratch = new Scratch(testDialects()[0]);
  after(() => scratch.dispose());

  for (const url of ['mysql://fw:secret@db.example.com/site', 'not a url', 'sqlite:', 'postgres:///site1']) {
    test(`new-site --db ${JSON.stringify(url)} is refused with the supported forms, creating nothing`, async () => {
      const dir = await scratch.folder('site');
      const run = await runBin(['new-site', dir, '--db', url]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stderr, FORMS);
      assert.doesNotMatch(run.stderr, /secret/);
      assert.equal(await exists(dir), false);
      assert.equal(await exists(join(process.cwd(), url)), false);
    });
  }

  test('serve --db with an unsupported URL on a new folder creates nothing', async () => {
    const dir = await scratch.folder('site');
    const run = await runBin(['serve', '--site', dir, '--port', '0', '--db', 'mysql://h/db'], { env: { FW_LOG_FORMAT: 'json' } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /fw cannot use mysql databases/);
    assert.equal(await exists(dir), false);
  });

  test('a db_url in site_config.json that fw cannot use is named as such', async () => {
    const dir = await scratch.site('site');
    const config = sitePaths(dir).config;
    await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), db_url: 'mysql://h/db' }));
    const run = await runBin(['migrate', '--site', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /site_config\.json: "db_url": fw cannot use mysql databases/);
  });
});

describe('node bin/fw.js: a broken or misspelt site_config.json', () => {
  const scratch = new Scratch(testDialects()[0]);
  after(() => scratch.dispose());

  test('a JSON error names the line and column, and does not send the reader to new-site', async () => {
    const dir = await scratch.site('site');
    const config = sitePaths(dir).config;
    const original = JSON.parse(await readFile(config, 'utf8')) as Record<string, unknown>;
    await writeFile(
      config,
      `{\n  "db_url": ${JSON.stringify(original.db_url)},\n  "encryption_key": "${String(original.encryption_key)}"\n  "time_zone": "UTC"\n}\n`,
    );
    for (const command of [['migrate'], ['backup'], ['user', 'keys', 'Administrator']]) {
      const run = await runBin([...command, '--site', dir]);
      assert.equal(run.code, 1, command.join(' '));
      assert.match(run.stderr, /site_config\.json is not valid JSON at line 4, column 3/, command.join(' '));
      assert.doesNotMatch(run.stderr, /new-site/);
    }
  });

  test('a file_storage the site cannot use stops it with the key and what to write, and never echoes the secret', async () => {
    const dir = await scratch.site('site');
    const config = sitePaths(dir).config;
    const storage = { backend: 's3', bucket: 'fw-files', access_key_id: 'AK', secret_access_key: 'very-secret-key', presign_ttl_s: 3600 };
    await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), file_storage: storage }));
    const run = await runBin(['migrate', '--site', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /site_config\.json: "file_storage\.presign_ttl_s" must be a whole number of seconds from 1 to 300/);
    assert.doesNotMatch(run.stderr, /very-secret-key/);
  });

  test('an unknown key is warned about at start, with the key it probably meant', async () => {
    const dir = await scratch.site('site');
    const config = sitePaths(dir).config;
    await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), max_file_sise: 5, brand_new_thing: 1 }));
    const port = await freePort();
    const child = spawnBin(['serve', '--site', dir, '--port', String(port)], { FW_LOG_FORMAT: 'json' });
    const out = outputOf(child);
    try {
      await out.waitFor(/Server listening at/, 60_000);
      assert.match(out.text(), /unknown key "max_file_sise" \(did you mean "max_file_size"\?\) is ignored/);
      assert.match(out.text(), /unknown key "brand_new_thing" is ignored/);
      assert.doesNotMatch(out.text(), /"db_url"|"encryption_key"|unknown key "(time_zone|site_name|socketio_port)"/);
    } finally {
      assert.equal(await stopChild(child, 'SIGTERM'), 0);
    }
  });
});

for (const dialect of testDialects()) {
  describe(`node bin/fw.js: a site whose database is missing (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    after(() => scratch.dispose());

    test('serve, migrate and user refuse to start and say what is missing; nothing is created', async () => {
      const dir = await scratch.site('site');
      const config = sitePaths(dir).config;
      // SQLite: the file is gone (an unmounted volume); PostgreSQL: db_url names an empty database.
      let emptyUrl: string;
      if (dialect.name === 'sqlite') {
        emptyUrl = (JSON.parse(await readFile(config, 'utf8')) as { db_url: string }).db_url;
        await rm(emptyUrl.replace(/^sqlite:/, ''));
      } else {
        emptyUrl = await scratch.databaseUrl();
        await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), db_url: emptyUrl }));
      }
      for (const command of [['serve', '--port', '0'], ['migrate'], ['user', 'keys', 'Administrator']]) {
        const run = await runBin([...command, '--site', dir], { env: { FW_LOG_FORMAT: 'json', FW_ADMIN_PASSWORD: 'admin' } });
        assert.equal(run.code, 1, `${command[0]}: ${run.stdout}`);
        assert.match(run.stderr, dialect.name === 'sqlite' ? /is missing: .*site\.db does not exist/ : /holds no fw site/, command[0]);
        assert.match(run.stderr, /fw new-site` creates sites/);
      }
      if (dialect.name === 'sqlite') {
        assert.equal(await exists(emptyUrl.replace(/^sqlite:/, '')), false);
      } else {
        const db = await openDatabase(emptyUrl);
        try {
          assert.deepEqual(await db.read((q) => db.dialect.listColumns(q, 'tabDocType')), []);
        } finally {
          await db.close();
        }
      }
    });
  });
}
