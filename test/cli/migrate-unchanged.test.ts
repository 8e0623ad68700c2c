import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { sitePaths } from '../../src/site/site-paths.js';
import type { Site } from '../../src/site/site.js';
import { LIBRARY_APP } from '../apps/app-site.js';
import { testDialects } from '../helpers/dialects.js';
import { runBin } from '../helpers/fw-bin.js';
import { Scratch, withSite } from './run-cli.js';

/** What a migration that changed nothing must leave as it was: stored definitions and the metadata version. */
async function snapshot(site: Site): Promise<{ version: string | undefined; doctypes: unknown[]; fields: unknown[] }> {
  return site.db.read(async (q) => {
    const b = site.db.dialect.builder;
    const rows = await q.all<{ value: string }>(b.selectFrom('__fw_state').select('value').where('key', '=', 'meta_version').compile());
    return {
      version: rows[0]?.value,
      doctypes: await q.all(b.selectFrom('tabDocType').select(['name', 'modified']).orderBy('name').compile()),
      fields: await q.all(b.selectFrom('tabDocField').select(['name', 'parent', 'fieldname', 'modified']).orderBy('name').compile()),
    };
  });
}

for (const dialect of testDialects()) {
  describe(`node bin/fw.js migrate with nothing to change (${dialect.name})`, () => {
    const scratch = new Scratch(dialect);
    let dir: string;
    before(async () => {
      dir = await scratch.site('site');
      const config = sitePaths(dir).config;
      await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), apps: [LIBRARY_APP] }));
    });
    after(() => scratch.dispose());

    test('a second migrate keeps every modified, every DocField row name and the metadata version', async () => {
      const first = await runBin(['migrate', '--site', dir]);
      assert.equal(first.code, 0, first.stderr);
      const before = await withSite(dir, snapshot);
      const second = await runBin(['migrate', '--site', dir]);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /apps synced: library/);
      const after = await withSite(dir, snapshot);
      assert.ok(before.version);
      assert.equal(after.version, before.version);
      assert.deepEqual(after.doctypes, before.doctypes);
      assert.deepEqual(after.fields, before.fields);
    });

    test('a stored built-in definition that differs from the shipped one is rewritten, and the version moves', async () => {
      await withSite(dir, (site) =>
        site.db.transaction((q) => q.run(site.db.dialect.builder.updateTable('tabDocField').set({ label: 'Tampered' }).where('parent', '=', 'ToDo').compile())),
      );
      const before = await withSite(dir, snapshot);
      const run = await runBin(['migrate', '--site', dir]);
      assert.equal(run.code, 0, run.stderr);
      const after = await withSite(dir, snapshot);
      assert.notEqual(after.version, before.version);
      const labels = await withSite(dir, (site) =>
        site.db.read((q) =>
          q.all<{ label: string | null }>(site.db.dialect.builder.selectFrom('tabDocField').select('label').where('parent', '=', 'ToDo').compile()),
        ),
      );
      assert.ok(labels.every((l) => l.label !== 'Tampered'));
      // Only ToDo was rewritten.
      const changed = after.doctypes.filter((d, i) => JSON.stringify(d) !== JSON.stringify(before.doctypes[i]));
      assert.deepEqual(
        changed.map((d) => (d as { name: string }).name),
        ['ToDo'],
      );
    });
  });
}
