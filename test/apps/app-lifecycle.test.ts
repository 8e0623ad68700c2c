import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSite } from '../../src/site/open-site.js';
import { migrateSite } from '../../src/site/migrate-site.js';
import type { Site } from '../../src/site/site.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, insertDoc, readDoc, resourceUrl, serverMessages, type Json } from '../helpers/document-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { LIBRARY_APP, openWithApps, ScratchApps, withApps } from './app-site.js';

/*
 * How a site takes in its apps over time: installation on opening and by `fw migrate`, changes to
 * an app's DocTypes, hooks on built-in DocTypes, and apps that cannot be loaded.
 */

/** The column names of a table. */
async function columns(site: Site, table: string): Promise<string[]> {
  return (await site.db.read((q) => site.db.dialect.listColumns(q, table))).map((c) => c.name);
}

/** An app shipping one DocType, `Shelf Label`, with the given fields. */
function labelApp(name: string, fields: Json[]): string {
  return `export default ${JSON.stringify({ name, doctypes: [{ name: 'Shelf Label', fields, permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1 }] }] })};`;
}

for (const dialect of testDialects()) {
  describe(`apps over a site's life (${dialect.name})`, () => {
    const scratch = new ScratchApps();
    let t: TestSite;

    /** Opens a view with `apps`, runs `work`, and closes the view. */
    async function withView<T>(apps: string[], work: (view: TestSite) => Promise<T>): Promise<T> {
      const view = await openWithApps(t, apps);
      try {
        return await work(view);
      } finally {
        await view.close();
      }
    }

    before(async () => {
      t = await startTestSite(dialect);
    });
    after(async () => {
      await t.close();
      await scratch.dispose();
    });

    test("opening again with the same apps leaves the app's stored DocTypes untouched", async () => {
      const first = await withView([LIBRARY_APP], async (view) => {
        await insertDoc(view, 'Book', { title: 'Kept' });
        return readDoc(view, 'DocType', 'Book');
      });
      await withView([LIBRARY_APP], async (view) => {
        assert.deepEqual(await readDoc(view, 'DocType', 'Book'), first);
        assert.equal((await insertDoc(view, 'Book', { title: 'Also kept' })).status, 'Available');
      });
    });

    test("fw migrate installs the apps' DocTypes, restores a dropped column and keeps the documents, run after run", async () => {
      await t.site.db.transaction((q) => q.run({ sql: 'alter table "tabBook" drop column "pages"', parameters: [] }));
      for (let run = 1; run <= 2; run++) {
        const progress: string[] = [];
        const summary = await withApps(t, [LIBRARY_APP], () => migrateSite(t.site.paths.root, { progress: (m) => progress.push(m) }));
        assert.equal(summary.apps, 2);
        assert.deepEqual(summary.appNames, ['library']);
        assert.ok(progress.includes('DocType Book (app library)'), progress.join('\n'));
      }
      assert.ok((await columns(t.site, 'tabBook')).includes('pages'));
      await withView([LIBRARY_APP], async (view) => {
        const titles = (await view.request({ method: 'GET', url: resourceUrl('Book') + '?fields=["title"]&order_by=title%20asc' })).json().data;
        assert.deepEqual(titles, [{ title: 'Also kept' }, { title: 'Kept' }]);
        assert.equal((await readDoc(view, 'DocType', 'Book')).module, 'library');
      });
    });

    test("a field added to an app's DocType reaches its table at the next opening, without fw migrate", async () => {
      const v1 = await scratch.write(labelApp('labels', [{ fieldname: 'text', fieldtype: 'Data' }]));
      const name = await withView([v1], async (view) => (await insertDoc(view, 'Shelf Label', { text: 'Fiction' })).name);
      assert.ok(!(await columns(t.site, 'tabShelf Label')).includes('colour'));
      const v2 = await scratch.write(
        labelApp('labels', [
          { fieldname: 'text', fieldtype: 'Data' },
          { fieldname: 'colour', fieldtype: 'Data' },
        ]),
      );
      await withView([v2], async (view) => {
        assert.ok((await columns(view.site, 'tabShelf Label')).includes('colour'));
        const stored = await readDoc(view, 'Shelf Label', name);
        assert.equal(stored.text, 'Fiction');
        const updated = await view.request({ method: 'PUT', url: resourceUrl('Shelf Label', name), body: { colour: 'red' } });
        assert.equal(updated.json().data.colour, 'red');
      });
    });

    test("an app's validate hook on a built-in DocType runs after the built-in rules", async () => {
      const guard = await scratch.write(`export default {
        name: 'guard',
        register(api) {
          api.hooks.on('ToDo', 'validate', async ({ doc }, next) => {
            if (String(doc.description).includes('secret')) throw new api.errors.ValidationError('ToDos may not mention secrets');
            await next();
          });
        },
      };`);
      await withView([guard], async (view) => {
        const refused = assertError(
          await view.request({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'the secret plan' } }),
          417,
          'ValidationError',
        );
        assert.deepEqual(serverMessages(refused), ['ToDos may not mention secrets']);
        assertError(await view.request({ method: 'POST', url: resourceUrl('ToDo'), body: {} }), 417, 'MandatoryError');
        assert.equal((await view.request({ method: 'POST', url: resourceUrl('ToDo'), body: { description: 'an open plan' } })).statusCode, 200);
      });
    });

    test('an app reads and saves a Single through api.documents as any document: System Settings', async () => {
      const settingsApp = await scratch.write(`export default {
        name: 'tuner',
        register(api) {
          api.methods.register('tuner.read_settings', async ({ ctx }) => {
            const doc = await api.documents.get(ctx, 'System Settings', 'System Settings');
            return { name: doc.name, max_file_size: doc.max_file_size };
          }, { methods: ['GET'] });
          api.methods.register('tuner.save_settings', async ({ ctx, args }) => {
            const doc = await api.documents.update(ctx, 'System Settings', 'System Settings', { max_file_size: Number(args.size) });
            return doc.max_file_size;
          });
        },
      };`);
      await withView([settingsApp], async (view) => {
        const read = await callMethod(view, 'GET', 'tuner.read_settings');
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(messageOf(read).name, 'System Settings');
        const saved = await callMethod(view, 'POST', 'tuner.save_settings', { size: 12345 });
        assert.equal(saved.statusCode, 200, saved.body);
        assert.equal(messageOf(saved), 12345);
        assert.equal(messageOf(await callMethod(view, 'GET', 'tuner.read_settings')).max_file_size, 12345);
        assert.equal((await readDoc(view, 'System Settings', 'System Settings')).max_file_size, 12345);
        // Its rules hold as over REST: the one document cannot be deleted, and another name is 404.
        assertError(await view.request({ method: 'DELETE', url: resourceUrl('System Settings', 'System Settings') }), 417, 'ValidationError');
      });
    });

    test('refuses to open when an app ships a DocType the site already has as a custom one', async () => {
      await createDocType(t, { name: 'Shelf Clash', fields: [{ fieldname: 'x', fieldtype: 'Data' }] });
      const clash = await scratch.write(`export default { name: 'clasher', doctypes: [{ name: 'Shelf Clash', fields: [] }] };`);
      await assert.rejects(openWithApps(t, [clash]), /App "clasher": DocType Shelf Clash already exists on this site as a custom DocType/);
      assert.equal((await readDoc(t, 'DocType', 'Shelf Clash')).custom, 1);
    });

    const broken: Array<[string, () => Promise<string>, RegExp]> = [
      [
        'a module that does not exist',
        async () => './apps/missing/index.js',
        /App "\.\/apps\/missing\/index\.js" \(site_config\.json "apps"\) cannot be found: no file or folder .*missing/,
      ],
      [
        'a method path outside the app namespace',
        () => scratch.write(`export default { name: 'stats', register(api) { api.methods.register('reports.get_stats', async () => 1); } };`),
        /App "stats": methods\.register\("reports\.get_stats"\): a method path is dotted names under the app's own namespace/,
      ],
      [
        'a register that throws',
        () => scratch.write(`export default { name: 'faulty', register() { throw new Error('no config'); } };`),
        /App "faulty" \(.*index\.mjs\): register failed: no config/,
      ],
    ];
    for (const [what, app, message] of broken) {
      test(`openSite fails with a message naming the app for ${what}, and the site opens again without it`, async () => {
        await assert.rejects(openWithApps(t, [await app()]), message);
        const site = await openSite(t.site.paths.root);
        await site.close();
      });
    }
  });
}
