import type { MetaRegistry } from '../meta/meta-registry.js';
import type { SettingsCache } from './settings-cache.js';
import type { Settings } from './settings.js';
import type { Database } from '../storage/database.js';

/** What reading the settings takes of a site (a `Site` is one). */
export interface SettingsSource {
  readonly settingsCache: SettingsCache;
  readonly metas: MetaRegistry;
  readonly db: Database;
}

/** Options of siteSettings. */
export interface SiteSettingsOptions {
  /**
   * Check the metadata version first (one indexed read): for code that runs before the request's
   * own check (CORS preflights, multipart staging), so a change made by another process applies
   * to the very next request there too.
   */
  readonly fresh?: boolean;
}

/**
 * The one way to read settings: the System Settings single (values that are set) over
 * site_config.json. Inside a unit of work (Site.read/write/detached, which refresh it right after
 * the metadata check) this is a cached value; otherwise it reads only when the metadata changed.
 */
export async function siteSettings(site: SettingsSource, options: SiteSettingsOptions = {}): Promise<Settings> {
  if (!options.fresh && site.settingsCache.isCurrent(site.metas)) return site.settingsCache.current;
  return site.db.read(async (q) => {
    if (options.fresh) await site.metas.refreshIfStale(q);
    return site.settingsCache.refresh(q, site.db.dialect, site.metas);
  });
}
