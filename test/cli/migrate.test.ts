import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sitePaths } from '../../src/site/site-paths.js';
import { LIBRARY_APP } from '../apps/app-site.js';
import { testDialects } from '../helpers/dialects.js';
import type { Site } from '../../src/site/site.js';
import { ADMIN, createBookDocType, runCli, Scratch, withSite } from './run-cli.js';

const BOOK = 'Migrate Book';

/** The column names of a table, sorted. */
async function columns(site: Site, table: string): Promise<string[]> {
  const found = await site.db.read((q) => site.db.dialect.listColumns(q, table));
  return found.map((c) => c.name).sort();
}

/** The stored rows of the custom DocType, as stored (standard columns included). */
async function books(site: Site): Promise<unknown[]> {
  return site.db.read((q) => q.all(site.db.dialect.builder.selectFrom(`tab${BOOK}`).selectAll().orderBy('name').compile()));
}

for (const dialect of testDialects()) {
  describe(`fw migrate (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    let dir: string;

    before(async () => {
      dir = await scratch.site('site');
      await withSite(dir, async (site) => {
        await createBookDocType(site, BOOK);
        await site.write(ADMIN, (ctx) => site.documents.insert(ctx, BOOK, { title: 'Dune', pages: 412 }));
      });
    });
    after(() => scratch.dispose());

    test('run twice on an existing site succeeds, reports every DocType and keeps the data and tables', async () => {
      const before = await withSite(dir, async (site) => ({ rows: await books(site), columns: await columns(site, `tab${BOOK}`) }));
      for (let run = 1; run <= 2; run++) {
        const result = await runCli(['migrate', '--site', dir]);
        assert.equal(result.code, 0, result.err);
        assert.match(result.err, /syncing DocType User\n/);
        assert.match(result.err, new RegExp(`syncing DocType ${BOOK} \\(custom\\)`));
        assert.match(result.out, /\d+ built-in, 0 app and 1 custom DocTypes match their definitions; no apps listed in site_config\.json$/);
      }
      await withSite(dir, async (site) => {
        assert.deepEqual(await books(site), before.rows);
        assert.deepEqual(await columns(site, `tab${BOOK}`), before.columns);
      });
    });

    test("brings back a custom DocType's column missing from its table, keeping the rows", async () => {
      await withSite(dir, (site) => site.db.transaction((q) => q.run({ sql: `alter table "tab${BOOK}" drop column "pages"`, parameters: [] })));
      const result = await runCli(['migrate', '--site', dir]);
      assert.equal(result.code, 0, result.err);
      await withSite(dir, async (site) => {
        assert.ok((await columns(site, `tab${BOOK}`)).includes('pages'));
        const dune = await site.read(ADMIN, (ctx) => site.documents.get(ctx, BOOK, 'Dune'));
        assert.equal(dune.title, 'Dune');
      });
    });

    test('syncs the apps site_config.json lists and names them in its report', async () => {
      const appsDir = await scratch.folder('apps');
      await mkdir(appsDir, { recursive: true });
      const second = join(appsDir, 'shelf.mjs');
      await writeFile(
        second,
        `export default ${JSON.stringify({ name: 'shelf', doctypes: [{ name: 'Shelf Tag', fields: [{ fieldname: 'tag', label: 'Tag', fieldtype: 'Data' }] }] })};`,
      );
      const config = sitePaths(dir).config;
      const original = await readFile(config, 'utf8');
      await writeFile(config, JSON.stringify({ ...JSON.parse(original), apps: [LIBRARY_APP, second] }));
      try {
        const result = await runCli(['migrate', '--site', dir]);
        assert.equal(result.code, 0, result.err);
        assert.match(result.err, /syncing DocType Book \(app library\)\n/);
        assert.match(result.err, /syncing DocType Shelf Tag \(app shelf\)\n/);
        assert.match(result.out, /\d+ built-in, 3 app and 1 custom DocTypes match their definitions; apps synced: library, shelf$/);
        await withSite(dir, async (site) => assert.ok((await columns(site, 'tabShelf Tag')).includes('tag')));
      } finally {
        await writeFile(config, original);
      }
    });

    test('names a folder that holds no site', async () => {
      const result = await runCli(['migrate', '--site', await scratch.folder('nothing')]);
      assert.equal(result.code, 1);
      assert.match(result.err, /No site in .*nothing: pass --site/);
    });
  });
}
