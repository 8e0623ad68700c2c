import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { DATA_IMPORT_LOG } from './doctypes/index.js';

/** The outcome of one document, as a Data Import Log row records it. */
export interface LogEntry {
  readonly dataImport: string;
  readonly logIndex: number;
  readonly rowIndexes: readonly number[];
  readonly success: boolean;
  readonly docname?: string;
  readonly messages?: readonly unknown[];
  readonly exception?: string;
}

const table = (ctx: DocContext) => ctx.metas.get(DATA_IMPORT_LOG).tableName;

/** True when document `logIndex` of the import was already written (its log says success). */
export async function succeeded(ctx: DocContext, dataImport: string, logIndex: number): Promise<boolean> {
  const rows = await ctx.q.all(
    ctx.dialect.builder
      .selectFrom(table(ctx))
      .select('name')
      .where('data_import', '=', dataImport)
      .where('log_index', '=', logIndex)
      .where('success', '=', 1)
      .limit(1)
      .compile(),
  );
  return rows.length > 0;
}

/** The log indexes of the import's documents already written. */
export async function succeededIndexes(ctx: DocContext, dataImport: string): Promise<Set<number>> {
  const rows = await ctx.q.all<{ log_index: number | string }>(
    ctx.dialect.builder.selectFrom(table(ctx)).select('log_index').where('data_import', '=', dataImport).where('success', '=', 1).compile(),
  );
  return new Set(rows.map((r) => Number(r.log_index)));
}

/**
 * Records a document's outcome in the transaction that wrote (or refused) it, replacing an earlier
 * failure of the same document, so each document has one log row however often it was tried.
 */
export async function recordOutcome(ctx: DocContext, documents: DocumentService, entry: LogEntry): Promise<void> {
  await ctx.q.run(
    ctx.dialect.builder
      .deleteFrom(table(ctx))
      .where('data_import', '=', entry.dataImport)
      .where('log_index', '=', entry.logIndex)
      .where('success', '=', 0)
      .compile(),
  );
  await documents.insert(
    ctx,
    DATA_IMPORT_LOG,
    {
      data_import: entry.dataImport,
      log_index: entry.logIndex,
      row_indexes: JSON.stringify(entry.rowIndexes),
      success: entry.success ? 1 : 0,
      docname: entry.docname ?? null,
      messages: JSON.stringify(entry.messages ?? []),
      exception: entry.exception ?? null,
    },
    { ignorePermissions: true },
  );
}

/** How many of the import's documents were written and how many failed. */
export async function outcomeCounts(ctx: DocContext, dataImport: string): Promise<{ success: number; failed: number }> {
  const rows = await ctx.q.all<{ success: number | string; n: number | string }>(
    ctx.dialect.builder
      .selectFrom(table(ctx))
      .select((eb) => ['success', eb.fn.countAll().as('n')])
      .where('data_import', '=', dataImport)
      .groupBy('success')
      .compile(),
  );
  let success = 0;
  let failed = 0;
  for (const r of rows) {
    if (Number(r.success) === 1) success += Number(r.n);
    else failed += Number(r.n);
  }
  return { success, failed };
}

/** The reference's `get_import_logs` answer: the log rows in file order, at most `limit`. */
export async function importLogs(ctx: DocContext, dataImport: string, limit: number): Promise<Record<string, unknown>[]> {
  const rows = await ctx.q.all<Record<string, unknown>>(
    ctx.dialect.builder
      .selectFrom(table(ctx))
      .select(['success', 'docname', 'messages', 'exception', 'row_indexes', 'log_index'])
      .where('data_import', '=', dataImport)
      .orderBy('log_index')
      .limit(limit)
      .compile(),
  );
  return rows.map((r) => ({ ...r, success: Number(r.success), log_index: Number(r.log_index) }));
}

/** The file rows of every document that failed. */
export async function failedRowNumbers(ctx: DocContext, dataImport: string): Promise<Set<number>> {
  const rows = await ctx.q.all<{ row_indexes: string | null }>(
    ctx.dialect.builder.selectFrom(table(ctx)).select('row_indexes').where('data_import', '=', dataImport).where('success', '=', 0).compile(),
  );
  const numbers = new Set<number>();
  for (const r of rows) {
    try {
      for (const n of JSON.parse(r.row_indexes ?? '[]') as unknown[]) if (typeof n === 'number') numbers.add(n);
    } catch {
      // A log row written by hand with bad JSON names no rows.
    }
  }
  return numbers;
}
