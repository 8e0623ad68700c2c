import { randomUUID } from 'node:crypto';
import type { DocContext } from '../documents/doc-context.js';
import { ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry, ParamSpec } from '../rpc/method-registry.js';
import { authorizeFile, authorizeTarget, loadImport } from './import-access.js';
import { IMPORT_JOB, setImportStatus, type ImportJobParts, type SliceArgs } from './import-job.js';
import { failedRowNumbers, importLogs, outcomeCounts } from './import-log-store.js';
import { importIsRunning, importJobId } from './live-import-job.js';
import { erroredRowsFile } from './errored-rows.js';
import { previewImport } from './preview.js';
import { importSource } from './source-rows.js';
import { importTemplate } from './template.js';
import { DATA_IMPORT } from './doctypes/index.js';

/** The module paths the methods answer under, each also as `frappe.…` (docs/import-export.md "Import"). */
export const DATA_IMPORT_MODULES = ['fw.core.doctype.data_import.data_import', 'fw.core.api.data_import_export'] as const;
/** Thrown to roll back a batch of the preview's dry run. */
const DRY_RUN_DONE = Symbol('dry run batch done');
/** `get_import_logs` answers at most this many rows, as the reference does. */
const MAX_LOGS = 5_000;

const text = (name: string, required = true): ParamSpec => ({ name, type: 'string', required });

function objectArg(value: unknown, what: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ValidationError(`${what} must be JSON`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ValidationError(`${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

function fieldLists(value: unknown): Record<string, readonly string[]> | undefined {
  const object = objectArg(value, 'export_fields');
  if (!object) return undefined;
  for (const [key, list] of Object.entries(object)) {
    if (!Array.isArray(list) || !list.every((f) => typeof f === 'string')) throw new ValidationError(`export_fields.${key} must be a list of fieldnames`);
  }
  return object as Record<string, readonly string[]>;
}

/** Locks the import's row (PostgreSQL) so two starts, or a start and a stop, take turns. */
async function lockImport(ctx: DocContext, name: string): Promise<void> {
  let query = ctx.dialect.builder.selectFrom(ctx.metas.get(DATA_IMPORT).tableName).select('name').where('name', '=', name);
  if (ctx.dialect.supportsRowLocks) query = query.forUpdate();
  await ctx.q.all(query.compile());
}

/** Registers the reference's Data Import methods under both module paths. */
export function registerImportMethods(methods: MethodRegistry, parts: ImportJobParts): void {
  const { documents, files } = parts;
  const handlers: [
    string,
    (call: MethodCall) => Promise<unknown>,
    { methods: ('GET' | 'POST')[]; params: ParamSpec[]; description: string; ownTransactions?: boolean },
  ][] = [
    [
      'get_preview_from_template',
      async ({ ctx, args, services }) => {
        const settings = await loadImport(ctx, documents, String(args.data_import), 'read');
        const importFile = typeof args.import_file === 'string' && args.import_file !== '' ? args.import_file : settings.importFile;
        const meta = await authorizeTarget(ctx, documents, settings);
        await authorizeFile(ctx, importFile);
        const rolledBack = async (work: (unit: DocContext) => Promise<void>) => {
          try {
            await services.write(ctx.principal, async (unit) => {
              await work(unit);
              throw DRY_RUN_DONE;
            });
          } catch (err) {
            if (err !== DRY_RUN_DONE) throw err;
          }
        };
        return previewImport(ctx, documents, files, { ...settings, importFile }, meta, rolledBack);
      },
      // The dry run writes in transactions of its own (always rolled back): POST only.
      {
        methods: ['POST'],
        params: [text('data_import'), text('import_file', false)],
        ownTransactions: true,
        description:
          'Dry run of a Data Import: every row checked as a save checks it, nothing stored; the first rows, the columns, the warnings and the row count.',
      },
    ],
    [
      'form_start_import',
      async ({ ctx, args }) => {
        const name = String(args.data_import);
        const settings = await loadImport(ctx, documents, name, 'write');
        await authorizeTarget(ctx, documents, settings);
        await authorizeFile(ctx, settings.importFile);
        // Refuses a file fw cannot read (.xls, .docx) before anything is queued.
        importSource(files, settings.importFile);
        await lockImport(ctx, name);
        if (await importIsRunning(ctx.q, ctx.dialect, name)) return false;
        await setImportStatus(ctx, name, 'Pending');
        const run = randomUUID();
        const first: SliceArgs = { data_import: name, run, slice: 1, from: 0, file: settings.importFile };
        await parts.jobs.enqueue(IMPORT_JOB, first, { unit: ctx, jobId: importJobId(name, run, 1) });
        return true;
      },
      { methods: ['POST'], params: [text('data_import')], description: 'Queues a Data Import; false when it is already queued or running.' },
    ],
    [
      'get_import_status',
      async ({ ctx, args }) => {
        const name = String(args.data_import_name);
        const settings = await loadImport(ctx, documents, name, 'read');
        const counts = await outcomeCounts(ctx, name);
        const [row] = await ctx.q.all<{ payload_count: number | null }>(
          ctx.dialect.builder.selectFrom(ctx.metas.get(DATA_IMPORT).tableName).select('payload_count').where('name', '=', name).compile(),
        );
        const total = Number(row?.payload_count ?? 0) || counts.success + counts.failed;
        return {
          status: settings.status,
          success: counts.success,
          failed: counts.failed,
          total_records: total,
          running: await importIsRunning(ctx.q, ctx.dialect, name),
        };
      },
      { methods: ['GET', 'POST'], params: [text('data_import_name')], description: 'Status of a Data Import with its counts of written and failed documents.' },
    ],
    [
      'get_import_logs',
      async ({ ctx, args }) => {
        const name = String(args.data_import);
        await loadImport(ctx, documents, name, 'read');
        return importLogs(ctx, name, MAX_LOGS);
      },
      { methods: ['GET', 'POST'], params: [text('data_import')], description: 'The Data Import Log rows of an import in file order (at most 5000).' },
    ],
    [
      'download_errored_template',
      async ({ ctx, args, http }) => {
        const name = String(args.data_import_name);
        const settings = await loadImport(ctx, documents, name, 'read');
        await authorizeFile(ctx, settings.importFile);
        const failed = await failedRowNumbers(ctx, name);
        await http.sendDownload(erroredRowsFile(importSource(files, settings.importFile), failed, `${settings.referenceDoctype} errored rows`));
        return undefined;
      },
      { methods: ['GET', 'POST'], params: [text('data_import_name')], description: 'The header and the failed rows of a Data Import, as CSV.' },
    ],
    [
      'stop_data_import',
      async ({ ctx, args }) => {
        const name = String(args.doc_name);
        const settings = await loadImport(ctx, documents, name, 'write');
        await lockImport(ctx, name);
        if (settings.status !== 'Pending' || !(await importIsRunning(ctx.q, ctx.dialect, name))) {
          ctx.messages.add({ message: 'Job is not running.', title: 'Invalid Operation' });
          return { status: 'success', message: 'Job is not running' };
        }
        // The running slice sees the status change before its next document and stops.
        const counts = await outcomeCounts(ctx, name);
        await setImportStatus(ctx, name, counts.success > 0 ? 'Partial Success' : 'Error');
        return { status: 'success', message: 'Job stopped successfully' };
      },
      { methods: ['POST'], params: [text('doc_name')], description: 'Stops a running Data Import before its next document.' },
    ],
    [
      'download_template',
      async ({ ctx, args, http }) => {
        const download = await importTemplate(ctx, documents, {
          doctype: String(args.doctype),
          exportFields: fieldLists(args.export_fields),
          exportRecords: typeof args.export_records === 'string' && args.export_records !== '' ? args.export_records : 'blank_template',
          exportFilters: objectArg(args.export_filters, 'export_filters'),
          fileType: typeof args.file_type === 'string' && args.file_type !== '' ? args.file_type : 'CSV',
        });
        await http.sendDownload(download);
        return undefined;
      },
      {
        methods: ['GET', 'POST'],
        description: 'The import template of a DocType (CSV or Excel), blank or with records.',
        params: [
          text('doctype'),
          { name: 'export_fields', type: 'any' },
          text('export_records', false),
          { name: 'export_filters', type: 'any' },
          text('file_type', false),
        ],
      },
    ],
  ];
  for (const module of DATA_IMPORT_MODULES) {
    for (const [method, handler, options] of handlers) methods.register(`${module}.${method}`, handler, options);
  }
}
