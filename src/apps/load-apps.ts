import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asDocTypeDef } from '../meta/core-doctypes/index.js';
import type { DocTypeDef } from '../meta/doctype.js';
import type { FieldTypeRegistry } from '../meta/field-types/registry.js';
import type { App, AppApi } from './app.js';
import { checkAppDocTypes } from './check-app-doctypes.js';
import { resolveAppModule } from './resolve-app-module.js';

/** An app imported and checked: ready for installation and registration. */
export interface LoadedApp {
  readonly name: string;
  /** The site_config.json entry it was loaded from, for messages. */
  readonly spec: string;
  /** The module's file. */
  readonly file: string;
  /** Its DocTypes, stamped as app-owned: `module` the app's name, `custom` 0. */
  readonly doctypes: readonly DocTypeDef[];
  readonly register: ((api: AppApi) => void | Promise<void>) | undefined;
}

const APP_NAME = /^[a-z][a-z0-9_]{0,60}$/;
/** `fw.` and `frappe.` are the built-in methods' namespaces, each an alias of the other. */
const RESERVED_NAMES = new Set(['fw', 'frappe']);
const APP_KEYS = new Set<string>(['name', 'doctypes', 'register'] satisfies (keyof App)[]);

/**
 * Imports the apps a site lists (site_config.json `"apps"`), in order, and checks each one: its
 * export, name, DocType JSON and the DocTypes of all of them together. Throws an Error naming
 * the app and what is wrong, so a broken app stops the site from opening rather than half-working.
 * `builtIn` are fw's own DocTypes, whose names no app may take.
 */
export async function loadApps(siteRoot: string, specs: readonly string[], types: FieldTypeRegistry, builtIn: readonly DocTypeDef[]): Promise<LoadedApp[]> {
  const apps: LoadedApp[] = [];
  for (const spec of specs) {
    const app = await loadApp(siteRoot, spec);
    const clash = apps.find((a) => a.name === app.name);
    if (clash) throw new Error(`Apps "${clash.spec}" and "${spec}" are both named "${app.name}"; an app's name must be unique`);
    apps.push(app);
  }
  checkAppDocTypes(apps, types, builtIn);
  return apps;
}

async function loadApp(siteRoot: string, spec: string): Promise<LoadedApp> {
  let url: string;
  try {
    url = resolveAppModule(spec, siteRoot);
  } catch (err) {
    throw new Error(`App "${spec}" (site_config.json "apps") cannot be found: ${(err as Error).message}`, { cause: err });
  }
  const file = fileURLToPath(url);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`App "${spec}" (${file}) failed to load: ${(err as Error).message}`, { cause: err });
  }
  const fail = (problem: string): never => {
    throw new Error(`App "${spec}" (${file}): ${problem}`);
  };
  const exported = mod.default ?? mod.app;
  if (exported === null || typeof exported !== 'object') {
    return fail('the module has no default export (or export named "app") holding the app: { name, doctypes?, register? }');
  }
  const app = exported as Record<string, unknown>;
  for (const key of Object.keys(app)) {
    if (!APP_KEYS.has(key)) fail(`unknown key "${key}" in the app object (known: ${[...APP_KEYS].join(', ')})`);
  }
  const name = app.name;
  if (typeof name !== 'string' || !APP_NAME.test(name)) {
    return fail(`"name" must be a lower-case identifier such as "library" (letters, digits, _), got ${JSON.stringify(name)}`);
  }
  if (RESERVED_NAMES.has(name)) fail(`"${name}" is reserved for fw's own methods; choose another name`);
  if (app.register !== undefined && typeof app.register !== 'function') fail('"register" must be a function');

  const named = (problem: string): never => {
    throw new Error(`App "${name}" (${file}): ${problem}`);
  };
  const raw = await rawDocTypes(app.doctypes, file, named);
  const doctypes = raw.map(({ json, source }) => {
    try {
      return Object.freeze({ ...asDocTypeDef(json), module: name, custom: 0 as const });
    } catch (err) {
      return named(`${source}: ${(err as Error).message}`);
    }
  });
  return {
    name,
    spec,
    file,
    doctypes,
    register: app.register as LoadedApp['register'],
  };
}

/** The DocType JSON an app ships, inline or as the `.json` files of a folder next to its module. */
async function rawDocTypes(value: unknown, moduleFile: string, fail: (problem: string) => never): Promise<Array<{ json: unknown; source: string }>> {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((json, i) => ({ json, source: `doctypes[${i}]` }));
  if (typeof value !== 'string') return fail('"doctypes" must be a list of DocType definitions or a folder of DocType JSON files');
  const folder = resolve(dirname(moduleFile), value);
  if (!(await stat(folder).catch(() => undefined))?.isDirectory()) {
    return fail(`"doctypes" names ${folder}, which is not a folder`);
  }
  const files = (await readdir(folder)).filter((f) => f.endsWith('.json')).sort();
  const out: Array<{ json: unknown; source: string }> = [];
  for (const f of files) {
    const path = join(folder, f);
    try {
      out.push({ json: JSON.parse(await readFile(path, 'utf8')), source: path });
    } catch (err) {
      fail(`${path} is not valid JSON: ${(err as Error).message}`);
    }
  }
  return out;
}
