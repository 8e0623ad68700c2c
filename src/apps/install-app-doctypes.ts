import { createHash } from 'node:crypto';
import { now } from '../datetime/clock.js';
import { DocumentRepository } from '../documents/document-repository.js';
import { storeDefinition } from '../documents/shipped-documents.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import { syncTable } from '../meta/schema-sync.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { AppDocTypes } from './check-app-doctypes.js';

const FINGERPRINT_KEY = 'apps_fingerprint';

/** What was installed last, so a site whose apps did not change is not written at every start. */
function fingerprint(apps: readonly AppDocTypes[]): string {
  return createHash('sha256')
    .update(JSON.stringify(apps.map((a) => [a.name, a.doctypes])))
    .digest('hex');
}

/**
 * Installs or updates the DocTypes the site's apps ship: their tables (syncTable only adds and
 * widens) and stored definitions, owned by the app (`module` its name, `custom` 0) so the API
 * cannot change or delete them. Skipped when the apps' DocTypes are those installed last, unless
 * `force` is set. A DocType an app no longer ships is left as it is, with its documents. Runs after
 * installCore, in the caller's transaction; returns the number of app DocTypes.
 */
export async function installAppDocTypes(
  q: Queryable,
  dialect: Dialect,
  metas: MetaRegistry,
  apps: readonly AppDocTypes[],
  progress: (message: string) => void,
  options: { force?: boolean } = {},
): Promise<number> {
  const count = apps.reduce((n, a) => n + a.doctypes.length, 0);
  const wanted = fingerprint(apps);
  const stored = await metas.readState(q, FINGERPRINT_KEY);
  // A site that never had apps has nothing to record.
  if (!options.force && (stored === wanted || (stored === undefined && count === 0))) return count;

  await metas.load(q);
  for (const app of apps) {
    for (const def of app.doctypes) {
      if (metas.has(def.name) && metas.get(def.name).def.custom === 1) {
        throw new Error(
          `App "${app.name}": DocType ${def.name} already exists on this site as a custom DocType; ` +
            "rename the app's DocType, or delete the custom one (with its documents) first",
        );
      }
    }
  }
  const shipped = apps.flatMap((a) => a.doctypes);
  const names = new Set(shipped.map((d) => d.name));
  // The whole set at once, so Table and Link fields between the apps' DocTypes resolve.
  metas.setAll([
    ...metas
      .names()
      .filter((n) => !names.has(n))
      .map((n) => metas.get(n).def),
    ...shipped,
  ]);

  const repo = new DocumentRepository(dialect, (d) => metas.get(d));
  const stamp = now('UTC');
  for (const app of apps) {
    for (const def of app.doctypes) {
      progress(`DocType ${def.name} (app ${app.name})`);
      await syncTable(q, dialect, metas.get(def.name));
    }
  }
  let changed = false;
  for (const def of shipped) if (await storeDefinition(q, repo, metas, def, stamp)) changed = true;
  // Nothing written when every definition already matched (a second `fw migrate`): no reload anywhere.
  if (stored !== wanted) await metas.writeState(q, FINGERPRINT_KEY, wanted);
  if (changed) await metas.bumpVersion(q);
  return count;
}
