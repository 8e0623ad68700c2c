import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { BUILT_IN_DOCTYPES } from '../site/built-in-doctypes.js';
import { loadApps } from './load-apps.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/library-app/index.js', import.meta.url));
const types = createFieldTypeRegistry();

const NOTE = { name: 'Shelf Note', fields: [{ fieldname: 'text', fieldtype: 'Data' }] };

describe('loadApps', () => {
  let root: string;
  let site: string;
  let counter = 0;

  /** Writes an app module (ESM source) under the scratch folder and returns its path. */
  async function writeApp(source: string, files: Record<string, string> = {}): Promise<string> {
    counter += 1;
    const dir = join(root, `app-${counter}`);
    await mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    const file = join(dir, 'index.mjs');
    await writeFile(file, source);
    return file;
  }
  const appWith = (app: Record<string, unknown>) => writeApp(`export default ${JSON.stringify(app)};`);
  const load = (...specs: string[]) => loadApps(site, specs, types, BUILT_IN_DOCTYPES);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'fw-apps-'));
    site = join(root, 'sites', 'one');
    await mkdir(site, { recursive: true });
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('loads the example app with its DocTypes stamped as owned by the app', async () => {
    const [app] = await load(EXAMPLE);
    assert.equal(app?.name, 'library');
    assert.equal(typeof app?.register, 'function');
    // In file-name order: book-loan.json, book.json.
    assert.deepEqual(
      app?.doctypes.map((d) => [d.name, d.module, d.custom]),
      [
        ['Book Loan', 'library', 0],
        ['Book', 'library', 0],
      ],
    );
  });

  test('resolves a relative path against the site folder', async () => {
    const file = await appWith({ name: 'relative', doctypes: [NOTE] });
    const [app] = await load(`../../${file.slice(root.length + 1)}`);
    assert.equal(app?.file, file);
    assert.equal(app?.doctypes[0]?.name, 'Shelf Note');
  });

  test("finds a package in the site folder's node_modules by name", async () => {
    const pkg = join(site, 'node_modules', 'fw-app-shelf');
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'fw-app-shelf', type: 'module', main: 'main.js' }));
    await writeFile(join(pkg, 'main.js'), `export const app = { name: 'shelf' };`);
    const [app] = await load('fw-app-shelf');
    assert.equal(app?.name, 'shelf');
    assert.deepEqual(app?.doctypes, []);
  });

  test('accepts an app whose default export is missing but whose export named app holds it', async () => {
    const file = await writeApp(`export const app = { name: 'named_export', register() {} };`);
    assert.equal((await load(file))[0]?.name, 'named_export');
  });

  const refused: Array<[string, () => Promise<string[]>, RegExp]> = [
    ['a path to nothing', async () => [join(root, 'missing', 'index.js')], /App ".*missing.*" \(site_config.json "apps"\) cannot be found: no file or folder/],
    [
      'a package that is not installed',
      async () => ['fw-app-not-installed'],
      /App "fw-app-not-installed" .*cannot be found: no package "fw-app-not-installed"/,
    ],
    ['a module that throws while loading', async () => [await writeApp(`throw new Error('boom');`)], /failed to load: boom/],
    ['a module without a default export', async () => [await writeApp(`export const other = 1;`)], /has no default export \(or export named "app"\)/],
    ['a name that is not an identifier', async () => [await appWith({ name: 'My App' })], /"name" must be a lower-case identifier.*"My App"/],
    ['the reserved name fw', async () => [await appWith({ name: 'fw' })], /"fw" is reserved/],
    ['a misspelt key of the app object', async () => [await appWith({ name: 'typo', doctype: [] })], /unknown key "doctype"/],
    ['a register that is not a function', async () => [await appWith({ name: 'reg', register: 1 })], /"register" must be a function/],
    [
      'a doctypes folder that does not exist',
      async () => [await appWith({ name: 'nofolder', doctypes: './nope' })],
      /App "nofolder".*"doctypes" names .*nope, which is not a folder/,
    ],
    [
      'a DocType file that is not JSON',
      async () => [await writeApp(`export default { name: 'badjson', doctypes: './dt' };`, { 'dt/note.json': '{ nope' })],
      /App "badjson".*note\.json is not valid JSON/,
    ],
    [
      'a DocType with a key no definition has',
      async () => [await appWith({ name: 'badkey', doctypes: [{ ...NOTE, fields: [{ fieldname: 'text', fieldtype: 'Data', mandatory: 1 }] }] })],
      /App "badkey".*doctypes\[0\]: Invalid DocType definition Shelf Note: fields\[0\]\.mandatory is not a known key/,
    ],
    [
      'a field of an unknown type',
      async () => [await appWith({ name: 'badtype', doctypes: [{ name: 'Odd', fields: [{ fieldname: 'x', fieldtype: 'Blob' }] }] })],
      /App "badtype": DocType Odd: Field x: unknown field type "Blob"/,
    ],
    [
      'a Link to a DocType neither built in nor shipped',
      async () => [await appWith({ name: 'badlink', doctypes: [{ name: 'Odd', fields: [{ fieldname: 'x', fieldtype: 'Link', options: 'Customer' }] }] })],
      /App "badlink": DocType Odd: Field x: options must name the DocType the Link points to/,
    ],
    [
      'a DocType named like a built-in one',
      async () => [await appWith({ name: 'clash', doctypes: [{ name: 'ToDo', fields: [] }] })],
      /App "clash": DocType ToDo: a built-in DocType has this name/,
    ],
    ['two apps of one name', async () => [await appWith({ name: 'twin' }), await appWith({ name: 'twin' })], /are both named "twin"/],
    [
      'two apps shipping one DocType',
      async () => [await appWith({ name: 'first', doctypes: [NOTE] }), await appWith({ name: 'second', doctypes: [NOTE] })],
      /App "second": DocType Shelf Note: app "first" defines it too/,
    ],
  ];
  for (const [what, specs, message] of refused) {
    test(`refuses ${what}, naming the app and the problem`, async () => {
      await assert.rejects(async () => load(...(await specs())), message);
    });
  }

  test('lets an app link to a DocType another app ships', async () => {
    const base = await appWith({ name: 'base', doctypes: [NOTE] });
    const user = await appWith({ name: 'user', doctypes: [{ name: 'Shelf', fields: [{ fieldname: 'note', fieldtype: 'Link', options: 'Shelf Note' }] }] });
    assert.deepEqual(
      (await load(base, user)).map((a) => a.name),
      ['base', 'user'],
    );
  });
});
