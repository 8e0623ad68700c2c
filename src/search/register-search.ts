import type { HookRegistry } from '../documents/hooks.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import type { Database } from '../storage/database.js';
import { postgresSearchStore } from './postgres-search-store.js';
import { queueRebuild, registerRebuildJob, type RebuildParts } from './rebuild-index.js';
import { SearchIndexer } from './search-indexer.js';
import { registerSearchMethods } from './search-methods.js';
import type { SearchStore } from './search-store.js';
import { sqliteSearchStore } from './sqlite-search-store.js';

/** What global search is wired into. */
export interface SearchParts {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly jobs: JobQueue;
  readonly db: Database;
  readonly metas: MetaRegistry;
  /** Where a failed index batch is reported (the site's logger). */
  readonly report: (err: unknown) => void;
}

/**
 * Wires global search into a site as openSite opens it (docs/search.md): the index tables, the
 * committed listeners that keep it current, the rebuild job (queued when a DocType's definition
 * changes) and the methods. Returns the indexer, whose `flush()` writes pending changes.
 */
export async function registerSearch(parts: SearchParts): Promise<SearchIndexer> {
  const store = await openSearchStore(parts.db);
  const indexer = new SearchIndexer({ ...parts, store });
  indexer.listen();
  parts.jobs.addSource(indexer);
  const rebuild: RebuildParts = { db: parts.db, metas: parts.metas, store, jobs: parts.jobs };
  registerRebuildJob(rebuild);
  // A DocType saved (its in_global_search fields may have changed) is rebuilt; one deleted leaves the index.
  for (const event of ['after_insert', 'on_update'] as const) {
    parts.hooks.on('DocType', event, async ({ doc, ctx }, next) => {
      await next();
      await queueRebuild(parts.jobs, String(doc.name), ctx);
    });
  }
  parts.hooks.onCommitted('DocType', 'after_delete', (e) => parts.db.transaction((q) => store.removeDocType(q, e.name)));
  registerSearchMethods(parts.methods, store, rebuild);
  return indexer;
}

/** The engine's store, its tables made sure of. PostgreSQL: pg_trgm is created when the role may. */
async function openSearchStore(db: Database): Promise<SearchStore> {
  const store = db.dialect.name === 'sqlite' ? sqliteSearchStore : postgresSearchStore(await ensureTrigrams(db));
  await db.transaction((q) => store.setup(q));
  return store;
}

/**
 * True when pg_trgm is (or could be made) available. A role that may not create extensions gets
 * a search that finds names by scanning instead of through a trigram index: the same results.
 */
async function ensureTrigrams(db: Database): Promise<boolean> {
  try {
    await db.transaction((q) => q.run({ sql: 'create extension if not exists pg_trgm', parameters: [] }));
  } catch {
    // Not allowed, or another process created it at the same moment: what counts is whether it is there.
  }
  const rows = await db.transaction((q) => q.all({ sql: "select 1 from pg_extension where extname = 'pg_trgm'", parameters: [] }));
  return rows.length > 0;
}
