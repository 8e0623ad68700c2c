import { installAppDocTypes } from '../apps/install-app-doctypes.js';
import { loadApps, type LoadedApp } from '../apps/load-apps.js';
import { BUILT_IN_DOCTYPES } from './built-in-doctypes.js';
import { createFieldTypeRegistry } from '../meta/field-types/index.js';
import { MetaRegistry } from '../meta/meta-registry.js';
import { syncTable } from '../meta/schema-sync.js';
import type { Database } from '../storage/database.js';
import { installCore, type Progress } from './install-core.js';
import { openSiteDatabase } from './open-site-database.js';

/** What a migration brought in line with the definitions. */
export interface MigrationSummary {
  /** Built-in DocTypes: tables, stored definitions, standard roles and users. */
  readonly builtIn: number;
  /** DocTypes shipped by the site's apps: tables and stored definitions. */
  readonly apps: number;
  /**
   * The site's apps by name, in site_config.json order: those whose DocTypes the migration brought
   * in line (all of them with scope `all`; with `builtIn`, only when they changed since last time).
   */
  readonly appNames: readonly string[];
  /** Custom DocTypes whose tables were re-synced (0 when only the built-ins were asked for). */
  readonly custom: number;
}

/** Options of migrateDatabase. */
export interface MigrateOptions {
  /**
   * `builtIn`: what every open of a site runs, cheap and enough after an fw upgrade that changed
   * only built-in DocTypes. `all` also re-syncs the table of every custom DocType (`fw migrate`).
   */
  readonly scope: 'builtIn' | 'all';
  /** The site's apps (loadApps), whose DocTypes are installed after the built-in ones. */
  readonly apps?: readonly LoadedApp[];
  readonly progress?: Progress;
}

/**
 * Brings a site's database in line with this version of fw, in one transaction: installCore, the
 * apps' DocTypes (installAppDocTypes: when they changed, or always with scope `all`), then (scope
 * `all`) each custom DocType's table from its stored definition. Idempotent; syncTable only
 * ever adds and widens, so no data is lost.
 */
export async function migrateDatabase(db: Database, metas: MetaRegistry, options: MigrateOptions): Promise<MigrationSummary> {
  const progress = options.progress ?? (() => {});
  return db.transaction(async (q) => {
    const force = options.scope === 'all';
    await installCore(q, db.dialect, metas, progress, { force });
    const builtIn = BUILT_IN_DOCTYPES.length;
    const loaded = options.apps ?? [];
    const apps = await installAppDocTypes(q, db.dialect, metas, loaded, progress, { force });
    const appNames = loaded.map((app) => app.name);
    if (options.scope === 'builtIn') return { builtIn, apps, appNames, custom: 0 };
    // Compiled from the stored definitions, exactly as the site will serve them.
    await metas.load(q);
    const custom = metas
      .names()
      .map((name) => metas.get(name))
      .filter((meta) => meta.def.custom === 1)
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const meta of custom) {
      progress(`DocType ${meta.name} (custom)`);
      await syncTable(q, db.dialect, meta);
    }
    return { builtIn, apps, appNames, custom: custom.length };
  });
}

/** Long enough for ALTER COLUMN TYPE to rewrite a large table; the 30 s request default is not. */
const MIGRATION_STATEMENT_TIMEOUT_MS = 60 * 60 * 1000;

/** `fw migrate`: opens the site's database alone and migrates everything (scope `all`). */
export async function migrateSite(dir: string, options: { dbUrl?: string; progress?: Progress } = {}): Promise<MigrationSummary> {
  const { paths, config, db } = await openSiteDatabase(dir, {
    dbUrl: options.dbUrl,
    poolSize: 1,
    statementTimeoutMs: MIGRATION_STATEMENT_TIMEOUT_MS,
  });
  try {
    const types = createFieldTypeRegistry();
    const apps = await loadApps(paths.root, config.apps, types, BUILT_IN_DOCTYPES);
    const metas = new MetaRegistry(db.dialect, types);
    return await migrateDatabase(db, metas, { scope: 'all', apps, progress: options.progress });
  } finally {
    await db.close();
  }
}
