import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { testDialects } from '../helpers/dialects.js';
import { ADMIN, createBookDocType, runCli, Scratch, withSite } from './run-cli.js';

const BOOK = 'Backup Book';

/** The Backup Book titles a site holds, sorted. */
async function bookTitles(dir: string): Promise<string[]> {
  return withSite(dir, async (site) => {
    const rows = await site.db.read((q) =>
      q.all<{ title: string }>(site.db.dialect.builder.selectFrom(`tab${BOOK}`).select('title').orderBy('title').compile()),
    );
    return rows.map((r) => r.title);
  });
}

for (const dialect of testDialects()) {
  describe(`fw backup and fw restore (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    let source: string;
    let archive: string;

    before(async () => {
      source = await scratch.site('source');
      await withSite(source, async (site) => {
        await createBookDocType(site, BOOK);
        await site.write(ADMIN, async (ctx) => {
          await site.documents.insert(ctx, BOOK, { title: 'Dune', pages: 412 });
          await site.documents.insert(ctx, BOOK, { title: 'Emma', pages: 474 });
          await site.documents.insert(ctx, 'ToDo', { description: 'water the plants' });
        });
      });
      await writeFile(join(source, 'public', 'files', 'hello.txt'), 'public hello');
      await mkdir(join(source, 'private', 'files', 'reports'));
      await writeFile(join(source, 'private', 'files', 'reports', 'q1.txt'), 'private report');
      archive = join(await scratch.folder('archives'), 'source.tar.gz');
      const backup = await runCli(['backup', '--site', source, '--out', archive]);
      assert.equal(backup.code, 0, backup.err);
      assert.match(backup.out, /written to .*source\.tar\.gz/);
      // Progress is for a terminal (first-hour tests); a script gets only the path.
      assert.doesNotMatch(backup.err, /database \d+%/);
    });
    after(() => scratch.dispose());

    test('writes an archive only its owner can read', async () => {
      assert.equal((await stat(archive)).mode & 0o777, 0o600);
    });

    test('restores documents, custom DocTypes, files and config into a new folder and database', async () => {
      const target = await scratch.folder('restored');
      const url = await scratch.databaseUrl();
      const restore = await runCli(['restore', archive, '--site', target, '--db', url]);
      assert.equal(restore.code, 0, restore.err);
      assert.match(restore.err, new RegExp(`syncing DocType ${BOOK} \\(custom\\)`));

      assert.deepEqual(await bookTitles(target), ['Dune', 'Emma']);
      await withSite(target, async (site) => {
        assert.equal(site.metas.get(BOOK).def.custom, 1);
        const dune = await site.read(ADMIN, (ctx) => site.documents.get(ctx, BOOK, 'Dune'));
        assert.equal(dune.pages, 412);
        const todos = await site.db.read((q) => q.all<{ description: string }>(site.db.dialect.builder.selectFrom('tabToDo').select('description').compile()));
        assert.deepEqual(
          todos.map((t) => t.description),
          ['water the plants'],
        );
      });
      assert.equal(await readFile(join(target, 'public', 'files', 'hello.txt'), 'utf8'), 'public hello');
      assert.equal(await readFile(join(target, 'private', 'files', 'reports', 'q1.txt'), 'utf8'), 'private report');
      const restored = JSON.parse(await readFile(join(target, 'site_config.json'), 'utf8'));
      const original = JSON.parse(await readFile(join(source, 'site_config.json'), 'utf8'));
      assert.equal(restored.db_url, url);
      assert.equal(restored.encryption_key, original.encryption_key);
    });

    test('refuses to restore over an existing site folder without --force and leaves it as it was', async () => {
      const result = await runCli(['restore', archive, '--site', source]);
      assert.equal(result.code, 1);
      assert.match(result.err, /already holds a site: pass --force to replace it/);
      assert.deepEqual(await bookTitles(source), ['Dune', 'Emma']);
    });

    test('refuses to restore into a database that already holds a site and leaves no folder behind', async () => {
      // Without --db a new folder takes the backed-up site's database, which is in use.
      const target = await scratch.folder('clash');
      const result = await runCli(['restore', archive, '--site', target]);
      assert.equal(result.code, 1);
      assert.match(result.err, /The database .* already holds a site: pass --force/);
      await assert.rejects(stat(target), { code: 'ENOENT' });
    });

    test('replaces an existing site with the backup when forced, keeping its database', async () => {
      const target = await scratch.folder('forced');
      const url = await scratch.databaseUrl();
      assert.equal((await runCli(['restore', archive, '--site', target, '--db', url])).code, 0);
      await withSite(target, (site) => site.write(ADMIN, (ctx) => site.documents.insert(ctx, BOOK, { title: 'Later', pages: 1 })));
      await rm(join(target, 'public', 'files', 'hello.txt'));
      await writeFile(join(target, 'public', 'files', 'stray.txt'), 'after the backup');

      const result = await runCli(['restore', archive, '--site', target, '--force']);
      assert.equal(result.code, 0, result.err);
      assert.deepEqual(await bookTitles(target), ['Dune', 'Emma']);
      assert.equal(await readFile(join(target, 'public', 'files', 'hello.txt'), 'utf8'), 'public hello');
      await assert.rejects(stat(join(target, 'public', 'files', 'stray.txt')), { code: 'ENOENT' });
      assert.equal(JSON.parse(await readFile(join(target, 'site_config.json'), 'utf8')).db_url, url);
    });

    if (dialect.name === 'postgres') {
      test('names pg_dump and what to install when it is missing', async () => {
        const saved = process.env.PATH;
        process.env.PATH = await scratch.folder('empty-path');
        try {
          const result = await runCli(['backup', '--site', source, '--out', join(await scratch.folder('out'), 'x.tar.gz')]);
          assert.equal(result.code, 1);
          assert.match(result.err, /pg_dump was not found on PATH: install the PostgreSQL client tools/);
        } finally {
          process.env.PATH = saved;
        }
      });
    }
  });
}

describe('fw restore of a bad archive', () => {
  const scratch = new Scratch(testDialects()[0]);
  after(() => scratch.dispose());

  test('names a missing archive', async () => {
    const missing = join(await scratch.folder('none'), 'missing.tar.gz');
    const result = await runCli(['restore', missing, '--site', await scratch.folder('site')]);
    assert.equal(result.code, 1);
    assert.match(result.err, /The backup archive .*missing\.tar\.gz does not exist/);
  });

  test('says a file that is not a gzip tar is no readable backup and leaves no folder behind', async () => {
    const folder = await scratch.folder('bad');
    await mkdir(folder);
    const bad = join(folder, 'bad.tar.gz');
    await writeFile(bad, 'not an archive at all');
    const target = await scratch.folder('site');
    const result = await runCli(['restore', bad, '--site', target]);
    assert.equal(result.code, 1);
    assert.match(result.err, /bad\.tar\.gz is not a readable backup archive/);
    await assert.rejects(stat(target), { code: 'ENOENT' });
  });
});
