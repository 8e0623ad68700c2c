import { closeSync, constants, openSync, readSync } from 'node:fs';

/**
 * The WAL-index header at the start of the `-shm` file: two 48-byte copies of the same fields
 * (change counter, last valid frame, page count, salts, checksums). SQLite rewrites them on every
 * commit, by any connection of any process, and on nothing else that changes what a reader sees
 * (see "WAL-index format" in SQLite's file-format documentation).
 */
const HEADER_BYTES = 48;

/**
 * Answers "has anyone committed since I last looked?" with one small read of the database's
 * `-shm` file, where asking SQLite (`PRAGMA data_version`) takes a read transaction with its file
 * locks: about a tenth of a document GET's time (see docs/benchmarks.md). An unchanged header is
 * proof that nothing was committed; a changed one (or a read caught half-way through a commit's
 * header write) only sends the caller to SQLite's own answer, so the probe can be wrong in the
 * cautious direction only.
 */
export class WalIndexProbe {
  readonly #fd: number;
  #seen = Buffer.alloc(HEADER_BYTES);
  #read = Buffer.alloc(HEADER_BYTES);

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** A probe of `<databaseFile>-shm`, or undefined when there is none to read (not in WAL mode yet). */
  static open(databaseFile: string): WalIndexProbe | undefined {
    try {
      return new WalIndexProbe(openSync(`${databaseFile}-shm`, constants.O_RDONLY));
    } catch {
      return undefined;
    }
  }

  /** True unless the header is byte for byte what the previous call saw. */
  changed(): boolean {
    let bytes: number;
    try {
      bytes = readSync(this.#fd, this.#read, 0, HEADER_BYTES, 0);
    } catch {
      return true;
    }
    if (bytes === HEADER_BYTES && this.#read.equals(this.#seen)) return false;
    [this.#seen, this.#read] = [this.#read, this.#seen];
    if (bytes !== HEADER_BYTES) this.#seen.fill(0);
    return true;
  }

  close(): void {
    closeSync(this.#fd);
  }
}
