import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Whether the site is in maintenance, and whether reads go on meanwhile (docs/configuration.md "Maintenance"). */
export interface MaintenanceState {
  /** `maintenance_mode`: writes are refused (503 InReadOnlyMode); without reads allowed, every request is (503 SessionStopped). */
  readonly on: boolean;
  /** `allow_reads_during_maintenance`: reads (and logins) go on while writes are refused. */
  readonly allowReads: boolean;
}

const OFF: MaintenanceState = { on: false, allowReads: false };

/** The two keys of a parsed site_config.json; anything but true or 1 is off. */
export function maintenanceOf(raw: Readonly<Record<string, unknown>>): MaintenanceState {
  const flag = (v: unknown) => v === true || v === 1;
  return flag(raw.maintenance_mode) ? { on: true, allowReads: flag(raw.allow_reads_during_maintenance) } : OFF;
}

/**
 * The longest a change of site_config.json can go unnoticed where the folder is watched: a
 * safety net for file systems whose change notifications get lost (network mounts).
 */
const RECHECK_MS = 1000;

/**
 * The maintenance keys of site_config.json as they are now, so `fw maintenance on|off` takes
 * effect on a running server without a restart. The site folder is watched (inotify on Linux):
 * a request looks at the file again only after a change notice, or a second after its last look,
 * because a stat() per request cost a GET about a tenth of its time (docs/benchmarks.md, "Where a
 * GET's time goes"). Where the folder cannot be watched, every request looks. A look costs one
 * stat(); the file is read again only when its inode, size or modification time changed. A file
 * that cannot be read or parsed meanwhile (an editor halfway through) keeps the last state.
 */
export class MaintenanceWatch {
  #state: MaintenanceState;
  #stamp: string | undefined;
  #watcher: FSWatcher | undefined;
  /** A change notice came since the last look (always true where nothing watches). */
  #dirty: boolean;
  #lookedAt: number;

  constructor(
    private readonly file: string,
    initial: MaintenanceState = OFF,
  ) {
    this.#state = initial;
    this.#stamp = this.#stampNow();
    this.#lookedAt = Date.now();
    this.#watcher = this.#watch();
    this.#dirty = this.#watcher === undefined;
  }

  /** The state for the request at hand. */
  get current(): MaintenanceState {
    const now = Date.now();
    if (!this.#dirty && now - this.#lookedAt < RECHECK_MS) return this.#state;
    this.#dirty = this.#watcher === undefined;
    this.#lookedAt = now;
    const stamp = this.#stampNow();
    if (stamp !== undefined && stamp !== this.#stamp) {
      try {
        const raw: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
        if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
          this.#state = maintenanceOf(raw as Record<string, unknown>);
          this.#stamp = stamp;
        }
      } catch {
        // Keep the last state, and look again at the next request.
        this.#dirty = true;
      }
    }
    return this.#state;
  }

  /** Stops watching (the site closes). */
  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  /**
   * Watches the folder, not the file: `fw maintenance` replaces the file by a rename, which a
   * watch on the old file would not follow.
   */
  #watch(): FSWatcher | undefined {
    const name = basename(this.file);
    try {
      const watcher = watch(dirname(this.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name || changed.startsWith(`${name}.`)) this.#dirty = true;
      });
      // A watch that fails later (the folder removed) falls back to looking at every request.
      watcher.on('error', () => {
        watcher.close();
        this.#watcher = undefined;
        this.#dirty = true;
      });
      return watcher;
    } catch {
      return undefined;
    }
  }

  #stampNow(): string | undefined {
    try {
      const s = statSync(this.file, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch {
      return undefined;
    }
  }
}
