import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { withSavepoint } from '../documents/savepoint.js';
import type { FileStore } from '../files/file-store.js';
import type { JobQueue, JobRun } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { RealtimePublisher } from '../realtime/index.js';
import { applyPayload } from './apply-payload.js';
import type { DateOrder } from './cell-values.js';
import { DATA_IMPORT } from './doctypes/index.js';
import { authorizeFile, authorizeTarget, loadImport } from './import-access.js';
import { outcomeCounts, recordOutcome, succeeded } from './import-log-store.js';
import { importJobId } from './live-import-job.js';
import { buildPayload, payloadsOf, planImport, type ImportPlan, type Payload } from './payloads.js';
import { importSource } from './source-rows.js';

/** The job that imports one slice of a file (docs/import-export.md "Import": the job). */
export const IMPORT_JOB = 'fw.data_import.import_slice';
/**
 * How long a slice writes documents before it hands over to the next one: long enough that
 * re-reading the file up to its starting point costs little, short enough to end well within the
 * timeout. How soon a killed import resumes depends on the lease alone.
 */
export const SLICE_BUDGET_MS = 20_000;
/**
 * The slice's timeout, and so its lease (plus the worker's 30 s margin): a process killed in the
 * middle of an import leaves a lease that runs out within about a minute, after which another
 * worker resumes (docs/jobs.md "Guarantees").
 */
export const SLICE_TIMEOUT_MS = 30_000;
/** The reference publishes progress only for imports of more documents than this. */
const PROGRESS_ABOVE = 5;

/** What the import job needs from the site. */
export interface ImportJobParts {
  readonly jobs: JobQueue;
  readonly documents: DocumentService;
  readonly files: FileStore;
  readonly realtime: RealtimePublisher;
  readonly metas: MetaRegistry;
}

/** A slice's arguments: the import, the run (one `form_start_import`), where to start, what the first pass found. */
export interface SliceArgs {
  readonly data_import: string;
  readonly run: string;
  readonly slice: number;
  readonly from: number;
  /** The file the run reads, fixed at its start: a later change of `import_file` belongs to the next run. */
  readonly file: string;
  readonly plan?: { readonly dateOrders: [number, DateOrder][]; readonly payloadCount: number; readonly rowCount: number };
}

/** Registers the slice job; `maxRetries` covers a database hiccup, a killed process is covered by the lease. */
export function registerImportJob(parts: ImportJobParts): void {
  parts.jobs.register(IMPORT_JOB, (args: SliceArgs, run: JobRun) => importSlice(parts, args, run), {
    timeout: SLICE_TIMEOUT_MS,
    maxRetries: 5,
  });
}

/** The import's final status from its logs (the reference's five values, docs/import-export.md). */
function finalStatus(counts: { success: number; failed: number }): string {
  if (counts.failed === 0) return 'Success';
  return counts.success === 0 ? 'Error' : 'Partial Success';
}

/** Sets read-only fields of a Data Import that only fw writes (status, payload_count). */
async function setImportFields(ctx: DocContext, name: string, values: Record<string, unknown>): Promise<void> {
  await ctx.q.run(ctx.dialect.builder.updateTable(ctx.metas.get(DATA_IMPORT).tableName).set(values).where('name', '=', name).compile());
}

/** Sets a Data Import's status. */
export function setImportStatus(ctx: DocContext, name: string, status: string): Promise<void> {
  return setImportFields(ctx, name, { status });
}

/** Reads the import's row with a lock, so a stop or a second runner waits for this document's transaction. */
async function lockedStatus(ctx: DocContext, name: string): Promise<string | undefined> {
  let query = ctx.dialect.builder.selectFrom(ctx.metas.get(DATA_IMPORT).tableName).select('status').where('name', '=', name);
  if (ctx.dialect.supportsRowLocks && ctx.writable) query = query.forUpdate();
  const [row] = await ctx.q.all<{ status: string }>(query.compile());
  return row?.status;
}

/**
 * One slice: reads the file from the start, skips the documents before `from` and those whose log
 * already says success (a slice run again after a crash), and writes each remaining document in a
 * transaction of its own together with its log row, until its time budget is spent; then it
 * enqueues the next slice. The last slice sets the final status and tells the importer.
 */
export async function importSlice(parts: ImportJobParts, args: SliceArgs, run: JobRun): Promise<void> {
  const started = Date.now();
  const name = String(args.data_import);
  const setup = await run.read(async (ctx) => {
    // A Data Import deleted since the run started has nothing left to do.
    if ((await lockedStatus(ctx, name)) !== 'Pending') return undefined;
    const settings = await loadImport(ctx, parts.documents, name, 'read');
    const meta = await authorizeTarget(ctx, parts.documents, settings);
    await authorizeFile(ctx, args.file);
    return { settings, meta };
  });
  if (!setup) return;
  const { settings, meta } = setup;
  const source = importSource(parts.files, args.file);
  const known = args.plan;
  const plan: ImportPlan = known
    ? {
        ...(await planImport(source, meta, parts.metas, settings.columnToField, { headerOnly: true })),
        dateOrders: new Map(known.dateOrders),
        payloadCount: known.payloadCount,
        rowCount: known.rowCount,
      }
    : await planImport(source, meta, parts.metas, settings.columnToField);
  // Only the count: a stop that came meanwhile keeps its status.
  if (!args.plan) await run.write(async (ctx) => setImportFields(ctx, name, { payload_count: plan.payloadCount }));
  const options = { importType: settings.importType, submitAfterImport: settings.submitAfterImport };
  const progress = (ctx: DocContext, payload: Payload, docname: string | undefined, success: boolean) => {
    if (plan.payloadCount <= PROGRESS_ABOVE) return;
    const elapsed = Date.now() - started;
    const done = payload.index + 1 - args.from;
    parts.realtime.publish(
      'data_import_progress',
      {
        current: payload.index + 1,
        total: plan.payloadCount,
        docname,
        data_import: name,
        success,
        row_indexes: payload.rows.map((r) => r.number),
        eta: Math.round(((plan.payloadCount - payload.index - 1) * elapsed) / Math.max(1, done) / 1000),
      },
      { user: run.user, afterCommit: true, ctx },
    );
  };

  for await (const payload of payloadsOf(source, plan)) {
    if (payload.index < args.from) continue;
    // Past its timeout the worker already counts this run as failed and retries it from `from`.
    if (run.signal.aborted) return;
    if (Date.now() - started > SLICE_BUDGET_MS) {
      const next: SliceArgs = { ...args, slice: args.slice + 1, from: payload.index, plan: planArgs(plan) };
      await parts.jobs.enqueue(IMPORT_JOB, next, { user: run.user, jobId: importJobId(name, args.run, next.slice) });
      return;
    }
    const carryOn = await run.write(async (ctx) => {
      if ((await lockedStatus(ctx, name)) !== 'Pending') return false;
      if (await succeeded(ctx, name, payload.index)) return true;
      await importPayload(ctx, parts, meta, plan, payload, name, options, progress);
      return true;
    });
    if (!carryOn) return;
  }
  await run.write(async (ctx) => {
    if ((await lockedStatus(ctx, name)) !== 'Pending') return;
    await setImportStatus(ctx, name, finalStatus(await outcomeCounts(ctx, name)));
    parts.realtime.publish('data_import_refresh', { data_import: name }, { user: run.user, afterCommit: true, ctx });
  });
}

function planArgs(plan: ImportPlan): NonNullable<SliceArgs['plan']> {
  return { dateOrders: [...plan.dateOrders], payloadCount: plan.payloadCount, rowCount: plan.rowCount };
}

/**
 * Writes one document and its log row in the caller's transaction: the document inside a
 * savepoint, so a refusal undoes only its own writes and the failure is logged beside the
 * documents that went in.
 */
async function importPayload(
  ctx: DocContext,
  parts: ImportJobParts,
  meta: ImportPlan['meta'],
  plan: ImportPlan,
  payload: Payload,
  name: string,
  options: { importType: string; submitAfterImport: boolean },
  progress: (ctx: DocContext, payload: Payload, docname: string | undefined, success: boolean) => void,
): Promise<void> {
  const rowIndexes = payload.rows.map((r) => r.number);
  const built = buildPayload(payload, plan);
  if (built.problems.length > 0) {
    const messages = built.problems.map((p) => ({ row: p.row, message: p.message }));
    await recordOutcome(ctx, parts.documents, {
      dataImport: name,
      logIndex: payload.index,
      rowIndexes,
      success: false,
      messages,
      exception: built.problems.map((p) => `Row ${p.row}: ${p.message}`).join('\n'),
    });
    progress(ctx, payload, undefined, false);
    return;
  }
  try {
    const docname = await withSavepoint(ctx.q, () => applyPayload(ctx, parts.documents, meta, built.doc, options), ctx.unit);
    await recordOutcome(ctx, parts.documents, { dataImport: name, logIndex: payload.index, rowIndexes, success: true, docname });
    progress(ctx, payload, docname, true);
  } catch (err) {
    const message = (err as Error).message;
    await recordOutcome(ctx, parts.documents, {
      dataImport: name,
      logIndex: payload.index,
      rowIndexes,
      success: false,
      messages: [{ message, title: (err as Error).name }],
      exception: message,
    });
    progress(ctx, payload, undefined, false);
  }
}
