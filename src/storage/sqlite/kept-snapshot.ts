import { WalIndexProbe } from './wal-index-probe.js';

/** What the keeper needs of the reader connection. */
export interface SnapshotConnection {
  control(text: 'BEGIN' | 'COMMIT'): void;
  /** Whether a transaction is open on the connection (SQLite ends one by itself after some errors). */
  readonly inTransaction: boolean;
  /** `PRAGMA data_version`. */
  dataVersion(): number;
}

/**
 * The longest the probe alone is trusted: past it, SQLite is asked again (and a kept snapshot is
 * renewed) even when the header looked the same, a safety net should the `-shm` file ever be
 * replaced under a running process, which SQLite itself does not do while connections are open.
 */
const PROBE_TRUST_MS = 1000;
/**
 * How long a kept snapshot may outlive the last unit that used it. A reader's snapshot holds back
 * the checkpointer (the WAL cannot be restarted past it), so an idle reader lets go soon.
 */
const KEEP_IDLE_MS = 100;

/**
 * The read transaction of the site's first reader, kept open from one read unit to the next while
 * nobody commits (docs/architecture.md, "Read units"). A unit's BEGIN and COMMIT cost more than
 * the document GET's own statements do in process (docs/benchmarks.md), and an unchanged
 * WAL-index header proves that the snapshot a kept transaction holds is still the newest one, so a
 * steady stream of reads pays for a transaction only when something was committed.
 *
 * The header is read before the snapshot is taken (BEGIN is deferred to the unit's first
 * statement), so a commit racing the check moves the header again and renews the snapshot at the
 * next unit: the probe can only be wrong in the cautious direction. The same check answers the
 * change counter the metadata cache compares (meta/meta-registry.ts): SQLite's `data_version` is
 * asked only when the header moved.
 */
export class KeptSnapshot {
  readonly #conn: SnapshotConnection;
  readonly #file: string;
  #probe: WalIndexProbe | undefined;
  /** A transaction this keeper began is open on the connection. */
  #open = false;
  /** A unit holds the reader now. */
  #inUse = false;
  /** The header moved since `data_version` was last asked. */
  #versionStale = true;
  #dataVersion = 0;
  #askedAt = -Infinity;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(conn: SnapshotConnection, databaseFile: string) {
    this.#conn = conn;
    this.#file = databaseFile;
  }

  /** A unit takes the reader: its statements see the kept snapshot if it is current, else a new one. */
  enter(): void {
    this.#inUse = true;
    const unchanged = this.#probe !== undefined && !this.#probe.changed() && Date.now() - this.#askedAt < PROBE_TRUST_MS;
    if (!unchanged) {
      this.#versionStale = true;
      // Opened (or, should the file be missing, tried again) only when the header cannot vouch.
      this.#probe ??= WalIndexProbe.open(this.#file);
    }
    if (this.#open) {
      if (unchanged) return;
      this.#end();
    }
    this.#conn.control('BEGIN');
    this.#open = true;
  }

  /** The unit gives the reader back; its transaction stays open until something commits or it idles. */
  leave(): void {
    this.#inUse = false;
    this.#open &&= this.#conn.inTransaction;
    if (!this.#open) return;
    if (this.#closed) {
      this.#end();
      return;
    }
    if (this.#idleTimer) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      try {
        this.release();
      } catch {
        // A connection that cannot end a read transaction is broken; the next unit meets and reports it.
      }
    }, KEEP_IDLE_MS);
    this.#idleTimer.unref();
  }

  /**
   * Ends the kept transaction unless a unit is using it: after this process commits (so the
   * checkpointer need not wait for the timer), before a restore, at close.
   */
  release(): void {
    if (this.#open && !this.#inUse) this.#end();
  }

  /** Changes whenever anyone committed since the last call: SQLite is asked only when the header moved. */
  changeCounter(): number {
    if (this.#versionStale) {
      this.#dataVersion = this.#conn.dataVersion();
      this.#askedAt = Date.now();
      this.#versionStale = false;
    }
    return this.#dataVersion;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.release();
    this.#probe?.close();
    this.#probe = undefined;
  }

  #end(): void {
    this.#open = false;
    if (this.#conn.inTransaction) this.#conn.control('COMMIT');
  }
}
