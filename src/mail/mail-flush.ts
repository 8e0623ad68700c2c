import { storedDatetime } from '../datetime/stored-datetime.js';
import type { Queryable } from '../storage/database.js';
import { readMailSettings } from './mail-settings.js';
import { SEND_JOB, sendJobId, type SenderDeps } from './mail-sender.js';
import { dueMails, expireOld, releaseStale, type QueueScope } from './queue-store.js';

/** The scheduled job that finds due mails (the reference's `flush`, on the `all` schedule). */
export const FLUSH_JOB = 'fw.mail.flush';

/** A mail in Sending this long belongs to a worker that died (frappe/frappe#33323): it is released. */
export const STALE_SENDING_MS = 15 * 60_000;
/** A mail Not Sent this long is Expired, as in the reference. */
const EXPIRE_MS = 7 * 24 * 3_600_000;
/** Mails queued per flush (the reference's `email_queue_batch_size`). */
const BATCH = 500;

/** Registers the flush job and its schedule. */
export function registerFlushJob(deps: SenderDeps): void {
  deps.jobs.register(FLUSH_JOB, async () => void (await flushMailQueue(deps)), { timeout: 120_000, maxRetries: 0 });
  deps.jobs.schedule('all', FLUSH_JOB);
}

/**
 * One flush (docs/mail.md "The queue"): unless sending is suspended, releases stale Sending rows,
 * expires week-old unsent ones, and queues a send job for every due mail (a mail whose
 * `send_after` passed, or whose send job was lost). Answers how many sends it queued.
 */
export async function flushMailQueue(deps: SenderDeps): Promise<number> {
  const { db } = deps;
  const nowMs = deps.jobs.clock.now();
  const tz = deps.timeZone();
  const nowText = storedDatetime(nowMs, tz);
  return db
    .transaction(async (q: Queryable) => {
      const settings = await readMailSettings(q, db.dialect);
      if (settings.suspended) return 0;
      const s: QueueScope = { q, dialect: db.dialect, metas: deps.metas };
      await releaseStale(s, storedDatetime(nowMs - STALE_SENDING_MS, tz), nowText);
      await expireOld(s, storedDatetime(nowMs - EXPIRE_MS, tz), nowText);
      const due = await dueMails(s, nowText, BATCH);
      await deps.jobs.enqueueBatch(
        due.map((m) => ({ handler: SEND_JOB, args: { name: m.name }, options: { jobId: sendJobId(m.name, m.retry) } })),
        { q },
      );
      return due.length;
    })
    .then((count) => {
      if (count > 0) deps.jobs.wake();
      return count;
    });
}
