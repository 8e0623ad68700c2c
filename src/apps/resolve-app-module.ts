import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The URL of the module an entry of site_config.json `"apps"` names: a path (absolute, or relative
 * to the site folder; a folder means its package.json `main` or index.js), or a package name
 * looked up from the site folder, then from fw's own folder (an app installed beside fw). Throws an
 * Error saying where it looked.
 */
export function resolveAppModule(spec: string, siteRoot: string): string {
  // Resolution "from the site folder" means as if required by a file in it.
  const fromSite = createRequire(join(resolve(siteRoot), 'site_config.json'));
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const target = resolve(siteRoot, spec);
    if (!existsSync(target)) throw new Error(`no file or folder ${target}`);
    try {
      return pathToFileURL(fromSite.resolve(target)).href;
    } catch {
      throw new Error(`${target} is a folder without an index.js or a package.json "main"`);
    }
  }
  let siteProblem: string;
  try {
    return pathToFileURL(fromSite.resolve(spec)).href;
  } catch (err) {
    siteProblem = (err as Error).message.split('\n')[0] ?? '';
  }
  try {
    return import.meta.resolve(spec);
  } catch {
    throw new Error(`no package "${spec}" from the site folder ${resolve(siteRoot)} or from fw's folder (${siteProblem})`);
  }
}
