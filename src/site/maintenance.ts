import { readFileSync, statSync } from 'node:fs';

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
 * The maintenance keys of site_config.json as they are now, so `fw maintenance on|off` takes
 * effect on a running server at its next request, without a restart. Each look costs one stat()
 * of the file; it is read again only when its inode, size or modification time changed. A file
 * that cannot be read or parsed meanwhile (an editor halfway through) keeps the last state.
 */
export class MaintenanceWatch {
  #state: MaintenanceState;
  #stamp: string | undefined;

  constructor(
    private readonly file: string,
    initial: MaintenanceState = OFF,
  ) {
    this.#state = initial;
    this.#stamp = this.#stampNow();
  }

  /** The state for the request at hand. */
  get current(): MaintenanceState {
    const stamp = this.#stampNow();
    if (stamp !== undefined && stamp !== this.#stamp) {
      try {
        const raw: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
        if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
          this.#state = maintenanceOf(raw as Record<string, unknown>);
          this.#stamp = stamp;
        }
      } catch {
        // Keep the last state; the next request looks again.
      }
    }
    return this.#state;
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
