import type { CommittedDocEvent, HookRegistry } from '../documents/hooks.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { JobSource } from '../jobs/job-queue.js';
import type { Database } from '../storage/database.js';
import { isSearchable, searchEntry } from './search-entry.js';
import type { SearchStore } from './search-store.js';

/** A change waiting to reach the index: the document to index, or undefined to take it out. */
type Pending = { readonly doctype: string; readonly name: string; readonly doc: Doc | undefined };

/** What the indexer needs of its site. */
export interface IndexerParts {
  readonly hooks: HookRegistry;
  readonly metas: MetaRegistry;
  readonly db: Database;
  readonly store: SearchStore;
  /** Where a failed batch is reported; the rebuild job repairs what it missed. */
  readonly report: (err: unknown) => void;
}

const UPSERT_EVENTS = ['after_insert', 'on_update', 'on_submit', 'on_update_after_submit', 'on_cancel'] as const;
/**
 * How long heard changes wait to be written together. Short enough that a search sent right after
 * a save rarely misses it; long enough that a busy site writes many changes per index commit.
 */
const FLUSH_DELAY_MS = 20;

/**
 * Keeps the index in step with committed writes (docs/search.md "When the index changes"): it
 * listens after the commit only, so a rolled-back write never reaches it. Changes are gathered
 * for FLUSH_DELAY_MS and written in one transaction, so a burst of writes costs the index one
 * commit, and a document saved twice is indexed once, as it was last. It is a job source of the
 * site's queue only so that closing the site (which flushes the sources) writes what is pending.
 */
export class SearchIndexer implements JobSource {
  readonly #parts: IndexerParts;
  readonly #pending = new Map<string, Pending>();
  #scheduled: Promise<void> | undefined;
  /** Ends the wait of the scheduled flush early. */
  #wake: (() => void) | undefined;

  constructor(parts: IndexerParts) {
    this.#parts = parts;
  }

  /** Registers the committed listeners. */
  listen(): void {
    const { hooks } = this.#parts;
    for (const event of UPSERT_EVENTS) hooks.onCommitted('*', event, (e) => this.#changed(e.doctype, e.name, e.doc));
    hooks.onCommitted('*', 'after_delete', (e) => this.#changed(e.doctype, e.name, undefined));
    hooks.onCommitted('*', 'after_rename', (e: CommittedDocEvent) => {
      if (e.oldName !== undefined) this.#changed(e.doctype, e.oldName, undefined);
      this.#changed(e.doctype, e.name, e.doc);
    });
  }

  /** Writes what is pending now and resolves once every change heard so far is in the index. */
  async flush(): Promise<void> {
    this.#wake?.();
    while (this.#scheduled) await this.#scheduled;
  }

  /** Nothing to sweep: a change lost with its process is repaired by the rebuild job. */
  async sweep(): Promise<void> {}

  #changed(doctype: string, name: string, doc: Doc | undefined): void {
    if (!this.#parts.metas.has(doctype) || !isSearchable(this.#parts.metas.get(doctype))) return;
    this.#pending.set(`${doctype}\u0000${name}`, { doctype, name, doc });
    this.#scheduled ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FLUSH_DELAY_MS);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(() => this.#write());
  }

  async #write(): Promise<void> {
    this.#wake = undefined;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
    try {
      await this.#parts.db.transaction(async (q) => {
        for (const change of batch) await this.#apply(q, change);
      });
    } catch (err) {
      this.#parts.report(err);
    } finally {
      this.#scheduled = undefined;
      if (this.#pending.size > 0) this.#scheduled = Promise.resolve().then(() => this.#write());
    }
  }

  async #apply(q: Parameters<SearchStore['upsert']>[0], { doctype, name, doc }: Pending): Promise<void> {
    const { metas, store } = this.#parts;
    const meta: Meta | undefined = metas.has(doctype) ? metas.get(doctype) : undefined;
    const entry = doc && meta ? searchEntry(meta, doc, (d) => metas.get(d)) : undefined;
    if (entry) await store.upsert(q, entry);
    else await store.remove(q, doctype, name);
  }
}
