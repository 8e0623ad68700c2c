import type { Readable } from 'node:stream';
import type { FileStore, StagedObject, WriteLimits } from './file-store.js';

/**
 * A file received with a request: staged in the store (hashed, size known) before the File
 * document is written. It remembers the keys it was committed under, so a retried transaction
 * finds its own copy again and a failed request takes back exactly what it put there.
 */
export class UploadedFile {
  readonly #store: FileStore;
  readonly #staged: StagedObject;
  readonly #placed = new Set<string>();
  #released = false;

  private constructor(
    store: FileStore,
    staged: StagedObject,
    readonly filename: string,
  ) {
    this.#store = store;
    this.#staged = staged;
  }

  /** Stages `body` in `store` (MaxFileSizeReachedError past `limits.maxBytes`, leaving nothing behind). */
  static async receive(store: FileStore, body: Readable, filename: string, limits: WriteLimits = {}): Promise<UploadedFile> {
    return new UploadedFile(store, await store.stage(body, limits), filename);
  }

  get size(): number {
    return this.#staged.size;
  }

  /** sha256 of the bytes, lower-case hex. */
  get contentHash(): string {
    return this.#staged.contentHash;
  }

  /** Commits the bytes under `key` unless it is taken; true when this upload now owns `key`. */
  async place(key: string): Promise<boolean> {
    if (this.#placed.has(key)) return true;
    if (!(await this.#store.commit(this.#staged, key))) return false;
    this.#placed.add(key);
    return true;
  }

  /** A key this upload was already committed under that `accept` likes (an earlier attempt of a retried transaction). */
  placedKey(accept: (key: string) => boolean): string | undefined {
    return [...this.#placed].find(accept);
  }

  /** Removes every copy this upload committed: the File documents that would point at them were not stored. */
  async undoPlacement(): Promise<void> {
    const keys = [...this.#placed];
    this.#placed.clear();
    for (const key of keys) await this.#store.remove(key);
  }

  /** Ends the upload: the staged copy goes; when the request failed, so do the committed ones. Safe to call twice. */
  async release(failed: boolean): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (failed) await this.undoPlacement();
    await this.#store.discard(this.#staged);
  }
}
