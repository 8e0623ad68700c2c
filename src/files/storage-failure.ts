import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceUnavailableError } from '../errors/index.js';

/** errno codes that mean "this folder cannot take files now", not "this request is wrong". */
const STORAGE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST', 'EISDIR', 'ENOENT']);

/** Told where and why the store could not write; the site logs it (the client sees no paths). */
export type StorageFailureReport = (err: Error, folder: string) => void;

/**
 * The catalogue error a client gets when a file folder cannot be written (unwritable, read-only,
 * full, not a folder): 503 ServiceUnavailableError instead of a 500, with the cause reported to
 * the site's log through `report` (docs/files.md). Any other error is returned as it is.
 */
export function storageFailure(err: unknown, folder: string, report: StorageFailureReport | undefined): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!(err instanceof Error) || code === undefined || !STORAGE_CODES.has(code)) return err;
  report?.(err, folder);
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk that holds them is full' : 'their folder cannot be written';
  return new ServiceUnavailableError(`The site cannot store files right now: ${why}. Tell the site's administrator (the server log names the cause).`, {
    cause: err,
  });
}

/**
 * Why `folder` cannot take files, or undefined when it can: made if missing, then a probe file is
 * written and removed (permission bits alone say nothing for root or read-only mounts).
 */
export async function folderWriteProblem(folder: string): Promise<string | undefined> {
  const probe = join(folder, `.fw-write-check-${randomUUID()}`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(probe, '', { flag: 'wx' });
    await rm(probe, { force: true });
    return undefined;
  } catch (err) {
    return `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${(err as Error).message}`;
  }
}
