import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { JOB_TABLE } from '../jobs/job-table.js';

/**
 * The jobs of one Data Import carry ids `data_import:<name>:<run>:<slice>`; a job keeps its id as
 * `dedupe_key` while it is queued or running (docs/jobs.md "The table").
 */
export function importJobId(dataImport: string, run: string, slice: number): string {
  return `${importJobPrefix(dataImport)}${run}:${slice}`;
}

function importJobPrefix(dataImport: string): string {
  return `data_import:${dataImport}:`;
}

/**
 * True while a job of the import is queued or running: one range of the queue's unique dedupe
 * index (`;` is the character after `:`), so the answer costs one index probe. A slice enqueues its
 * successor before it completes, so a running import always has one.
 */
export async function importIsRunning(q: Queryable, dialect: Dialect, dataImport: string): Promise<boolean> {
  const prefix = importJobPrefix(dataImport);
  const rows = await q.all(
    dialect.builder
      .selectFrom(JOB_TABLE)
      .select('name')
      .where('dedupe_key', '>=', prefix)
      .where('dedupe_key', '<', `${prefix.slice(0, -1)};`)
      .limit(1)
      .compile(),
  );
  return rows.length > 0;
}
