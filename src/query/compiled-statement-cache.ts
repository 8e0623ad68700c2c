import type { Meta } from '../meta/meta.js';

/** Keys longer than this are compiled every time rather than kept (they would cost more memory than they save). */
const MAX_KEY_LENGTH = 4096;

/**
 * Compiled statements of one DocType by a key naming everything that decides their SQL text and
 * values. Entries hang off the compiled Meta in a weak map, so reloaded metadata (any DocType
 * change makes new Meta objects) starts afresh; each DocType keeps at most `maxEntries`, the
 * oldest dropped first. Compilation errors are never kept: a bad request fails each time.
 */
export class CompiledStatementCache<T> {
  readonly #byMeta = new WeakMap<Meta, Map<string, T>>();
  readonly #maxEntries: number;

  constructor(maxEntries = 256) {
    this.#maxEntries = Math.max(1, maxEntries);
  }

  /** The statement kept under `key` for `meta`, or the result of `compile`, kept for next time. */
  get(meta: Meta, key: string, compile: () => T): T {
    if (key.length > MAX_KEY_LENGTH) return compile();
    let entries = this.#byMeta.get(meta);
    if (!entries) {
      entries = new Map();
      this.#byMeta.set(meta, entries);
    }
    const kept = entries.get(key);
    if (kept !== undefined) return kept;
    const compiled = compile();
    while (entries.size >= this.#maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(key, compiled);
    return compiled;
  }
}
