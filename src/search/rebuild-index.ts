import { DocumentRepository } from '../documents/document-repository.js';
import type { JobQueue, JobUnit } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database } from '../storage/database.js';
import { isSearchable, searchEntry, type SearchEntry } from './search-entry.js';
import type { SearchStore } from './search-store.js';

/** The job that rebuilds one DocType's part of the index (docs/search.md "Rebuilding"). */
export const REBUILD_JOB = 'fw.utils.global_search.rebuild_for_doctype';
/** Documents indexed per transaction: short enough not to hold the writer long. */
const PAGE = 500;

export interface RebuildParts {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly store: SearchStore;
  readonly jobs: JobQueue;
}

/**
 * Takes every entry of `doctype` out of the index, then, when its documents are searchable (a
 * field marked in_global_search), indexes them again in pages by name. Writes committed meanwhile
 * are indexed by the committed listeners, and a page reads the documents as they are then.
 */
export async function rebuildDocType(parts: RebuildParts, doctype: string, signal?: AbortSignal): Promise<number> {
  const { db, metas, store } = parts;
  await db.transaction(async (q) => {
    // The DocType may have changed just now, in this process or another: read its current definition.
    await metas.refreshIfStale(q);
    await store.removeDocType(q, doctype);
  });
  if (!metas.has(doctype) || !isSearchable(metas.get(doctype))) return 0;
  const meta = metas.get(doctype);
  const repository = new DocumentRepository(db.dialect, (d) => metas.get(d));
  const withChildren = meta.tableFields.some((f) => f.def.in_global_search === 1);
  let after: string | undefined;
  let indexed = 0;
  for (;;) {
    signal?.throwIfAborted();
    const names = await db.transaction(async (q) => {
      let select = db.dialect.builder.selectFrom(meta.tableName).selectAll().orderBy('name').limit(PAGE);
      if (after !== undefined) select = select.where('name', '>', after);
      const rows = await q.all<{ name: string }>(select.compile());
      const entries: SearchEntry[] = [];
      for (const row of rows) {
        // Child rows are read only when a table field's rows are part of the content.
        const doc = withChildren ? await repository.load(q, meta, row.name) : repository.toDoc(meta, row);
        const entry = doc ? searchEntry(meta, doc, (d) => metas.get(d)) : undefined;
        if (entry) entries.push(entry);
      }
      await store.upsertMany(q, entries);
      indexed += entries.length;
      return rows.map((r) => r.name);
    });
    if (names.length < PAGE) return indexed;
    after = names[names.length - 1];
  }
}

/**
 * Queues a rebuild of `doctype` (inside `unit` when given: it exists only if that commits); a
 * rebuild already waiting for it is not queued twice.
 */
export function queueRebuild(jobs: JobQueue, doctype: string, unit?: JobUnit): Promise<string> {
  return jobs.enqueue(REBUILD_JOB, { doctype }, { jobId: `${REBUILD_JOB}:${doctype}`, ...(unit ? { unit } : {}) });
}

/** Registers the rebuild job on the site's queue. */
export function registerRebuildJob(parts: RebuildParts): void {
  parts.jobs.register(
    REBUILD_JOB,
    async (args: { doctype?: unknown }, run) => {
      await rebuildDocType(parts, String(args.doctype ?? ''), run.signal);
    },
    { timeout: 30 * 60_000, maxRetries: 2 },
  );
}
