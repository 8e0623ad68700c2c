// `npm run bench -- --import`: Data Import throughput (docs/import-export.md "Import"). In process,
// per dialect: a CSV of N rows (default 100,000) is uploaded, previewed (the dry run) and imported
// by the site's worker; reports rows per second of each and the peak RSS.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSiteWorker } from '../src/site/site-jobs.js';
import { openInProcessSite } from './in-process-site.js';
import { createThrowawayDatabase, DEFAULT_PG_URL, postgresReachable } from './postgres-admin.js';

export const IMPORT_USAGE = 'npm run bench -- --import [--rows 100000] [--dialect sqlite|postgres]';
const METHODS = '/api/method/frappe.core.doctype.data_import.data_import';

interface ImportFigures {
  readonly dialect: string;
  readonly rows: number;
  readonly previewRowsPerSecond: number;
  readonly importRowsPerSecond: number;
  readonly peakRssMiB: number;
}

function multipart(name: string, content: string): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `fw-bench-${Date.now()}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="is_private"\r\n\r\n1\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function benchImport(dir: string, dbUrl: string | undefined, dialect: string, rows: number, log: (line: string) => void): Promise<ImportFigures> {
  const bench = await openInProcessSite(dir, dbUrl);
  const { site, app, auth, call } = bench;
  const worker = startSiteWorker(site, { concurrency: 1 });
  try {
    await call('POST', '/api/resource/DocType', {
      name: 'Bench Import',
      fields: [
        { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
        { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
        { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
      ],
      permissions: [{ role: 'System Manager' }],
    });
    const lines = ['Title,Qty,Due'];
    for (let i = 0; i < rows; i++) lines.push(`Row ${i},${i % 100},${String((i % 28) + 1).padStart(2, '0')}-01-2024`);
    const form = multipart('bench.csv', lines.join('\n'));
    const upload = await app.inject({
      method: 'POST',
      url: '/api/method/upload_file',
      headers: { authorization: auth, ...form.headers },
      payload: form.payload,
    });
    if (upload.statusCode !== 200) throw new Error(`upload: ${upload.statusCode} ${upload.body}`);
    const fileUrl = (upload.json() as { message: { file_url: string } }).message.file_url;
    const made = await call('POST', '/api/resource/Data Import', {
      reference_doctype: 'Bench Import',
      import_type: 'Insert New Records',
      import_file: fileUrl,
    });
    const name = made.data.name as string;

    let start = performance.now();
    const preview = await call('POST', `${METHODS}.get_preview_from_template`, { data_import: name });
    const previewSeconds = (performance.now() - start) / 1000;
    if (preview.message.total_number_of_rows !== rows) throw new Error(`preview counted ${preview.message.total_number_of_rows} rows`);
    log(`  ${dialect}: preview of ${rows} rows in ${previewSeconds.toFixed(1)} s`);

    start = performance.now();
    await call('POST', `${METHODS}.form_start_import`, { data_import: name });
    for (;;) {
      const status = (await call('GET', `${METHODS}.get_import_status?data_import_name=${name}`)).message;
      if (status.status !== 'Pending') {
        if (status.success !== rows) throw new Error(`imported ${status.success} of ${rows}: ${JSON.stringify(status)}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const importSeconds = (performance.now() - start) / 1000;
    log(`  ${dialect}: import of ${rows} rows in ${importSeconds.toFixed(1)} s`);
    return {
      dialect,
      rows,
      previewRowsPerSecond: Math.round(rows / previewSeconds),
      importRowsPerSecond: Math.round(rows / importSeconds),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await worker.stop();
    await bench.close();
  }
}

/** Runs the import scenario on each dialect asked for (both by default; PostgreSQL when reachable). */
export async function runImportBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--import'),
    options: { rows: { type: 'string' }, dialect: { type: 'string', multiple: true } },
  });
  const rows = values.rows === undefined ? 100_000 : Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) {
    console.error(`bench: --rows takes a whole number above 0\n\n${IMPORT_USAGE}`);
    return 2;
  }
  const dialects = values.dialect ?? ['sqlite', 'postgres'];
  const pgUrl = process.env.FW_BENCH_PG_URL ?? DEFAULT_PG_URL;
  const results: ImportFigures[] = [];
  for (const dialect of dialects) {
    const dir = await mkdtemp(join(tmpdir(), 'fw-bench-import-'));
    let db: { url: string; drop(): Promise<void> } | undefined;
    try {
      if (dialect === 'postgres') {
        if (!(await postgresReachable(pgUrl))) {
          console.log('  postgres: not reachable, skipped');
          continue;
        }
        db = await createThrowawayDatabase(pgUrl);
      }
      results.push(await benchImport(dir, db?.url, dialect, rows, console.log));
    } finally {
      await db?.drop();
      await rm(dir, { recursive: true, force: true });
    }
  }
  console.log('\n| dialect | rows | preview rows/s | import rows/s | peak RSS (process) |\n|---|---|---|---|---|');
  for (const r of results) console.log(`| ${r.dialect} | ${r.rows} | ${r.previewRowsPerSecond} | ${r.importRowsPerSecond} | ${r.peakRssMiB} MiB |`);
  return 0;
}
