import { readSingleRows, writeSingleRows } from '../documents/singles/single-rows.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { SYSTEM_SETTINGS } from '../settings/settings.js';

/** The queue's switches in System Settings (docs/mail.md "Retries" and "Suspend sending"). */
export interface MailSettings {
  /** Retries after the first attempt (`email_retry_limit`, default 3). */
  readonly retryLimit: number;
  /** `suspend_email_queue`: nothing is sent while set. */
  readonly suspended: boolean;
}

export const DEFAULT_RETRY_LIMIT = 3;

/** Reads the switches fresh: a worker must see a suspend set by another process at once. */
export async function readMailSettings(q: Queryable, dialect: Dialect): Promise<MailSettings> {
  const rows = await readSingleRows(q, dialect, SYSTEM_SETTINGS);
  const limit = Number(rows.get('email_retry_limit') ?? '');
  return {
    retryLimit: rows.get('email_retry_limit') != null && Number.isInteger(limit) && limit >= 0 ? Math.min(limit, 20) : DEFAULT_RETRY_LIMIT,
    suspended: rows.get('suspend_email_queue') === '1',
  };
}

/** Sets or clears the suspend switch (toggle_sending). */
export async function setSuspended(q: Queryable, dialect: Dialect, suspended: boolean): Promise<void> {
  await writeSingleRows(q, dialect, SYSTEM_SETTINGS, new Map([['suspend_email_queue', suspended ? '1' : '0']]));
}
