import { fromSingleText, readSingleRows } from '../documents/singles/single-rows.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Meta } from '../meta/meta.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { effectiveSettings, SYSTEM_SETTINGS, type Settings } from './settings.js';

/** The values System Settings holds (rows that exist), in their JSON form. */
async function storedSystemSettings(q: Queryable, dialect: Dialect, meta: Meta): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, text] of await readSingleRows(q, dialect, meta.name)) {
    const field = meta.field(key);
    if (field?.column) out[key] = fromSingleText(field, text);
  }
  return out;
}

/**
 * A site's settings as last read, kept per process. The metadata registry compiles new Meta
 * objects whenever it reloads, and it reloads exactly when the version token changed, which a
 * System Settings save bumps (in its own transaction); so comparing the System Settings Meta with
 * the one the settings were read under is the cross-process version check, and costs nothing
 * while nothing changed.
 */
export class SettingsCache {
  readonly #config: Settings;
  #settings: Settings;
  #source: Meta | undefined;
  #loaded = false;

  /** `config`: the defaults, site_config.json's values. */
  constructor(config: Settings) {
    this.#config = effectiveSettings(config, {});
    this.#settings = this.#config;
  }

  /** The settings as last read; site_config.json's until the first read. */
  get current(): Settings {
    return this.#settings;
  }

  /** True when the settings were read under the metadata `metas` holds now. */
  isCurrent(metas: MetaRegistry): boolean {
    return this.#loaded && this.#source === systemSettingsMeta(metas);
  }

  /** Reads System Settings again when the metadata changed since the last read; no I/O otherwise. */
  async refresh(q: Queryable, dialect: Dialect, metas: MetaRegistry): Promise<Settings> {
    if (this.isCurrent(metas)) return this.#settings;
    const source = systemSettingsMeta(metas);
    const stored = source ? await storedSystemSettings(q, dialect, source) : {};
    this.#settings = effectiveSettings(this.#config, stored);
    this.#source = source;
    this.#loaded = true;
    return this.#settings;
  }
}

function systemSettingsMeta(metas: MetaRegistry): Meta | undefined {
  return metas.has(SYSTEM_SETTINGS) ? metas.get(SYSTEM_SETTINGS) : undefined;
}
