import { getFieldSecret } from '../auth/field-secrets.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Database, Queryable, Row } from '../storage/database.js';
import { WEBHOOK } from './doctypes/index.js';
import { prepareRequest, type OwnerReads } from './render-as-owner.js';
import { deleteDelivery, loadDelivery, recordAttempt, type AttemptRecord, type DeliveryRow, type LogScope } from './request-log-store.js';
import { judge, nextRetryDelay } from './retry-schedule.js';
import { dropSnapshot, readSnapshot } from './snapshot-store.js';
import type { TargetPolicy } from './target-guard.js';
import type { StoredRequest } from './webhook-body.js';
import { readWebhookDefs } from './webhook-cache.js';
import { attemptHeaders } from './webhook-signature.js';
import { sendWebhookRequest } from './webhook-send.js';

/** The job that makes one delivery attempt of a Webhook Request Log. */
export const DELIVER_JOB = 'fw.webhooks.deliver';

/** Timeouts are capped (docs/webhooks.md "Safety"): 1 to 30 seconds. */
export const MAX_TIMEOUT_S = 30;
/** Retries after the first attempt are capped at 10. */
export const MAX_RETRIES = 10;

/** What delivery needs from the site. */
export interface DeliveryDeps extends OwnerReads {
  readonly db: Database;
  readonly metas: MetaRegistry;
  readonly jobs: JobQueue;
  readonly timeZone: () => string;
  readonly encryptionKey: string;
  /** Where deliveries may connect (site_config.json `webhook_allowed_targets`; target-guard.ts). */
  readonly targets: TargetPolicy;
  readonly random?: () => number;
}

interface HookSettings {
  readonly enabled: boolean;
  readonly timeoutS: number;
  readonly maxRetries: number;
  readonly secured: boolean;
  readonly queue: string | undefined;
}

async function hookSettings(q: Queryable, deps: DeliveryDeps, name: string): Promise<HookSettings | undefined> {
  const [row] = await q.all<Row>(deps.db.dialect.builder.selectFrom(deps.metas.get(WEBHOOK).tableName).selectAll().where('name', '=', name).compile());
  if (!row) return undefined;
  const clamp = (v: unknown, lo: number, hi: number, fallback: number) => {
    const n = Number(v);
    return Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.floor(n))) : fallback;
  };
  return {
    enabled: Number(row.enabled) === 1,
    timeoutS: clamp(row.timeout, 1, MAX_TIMEOUT_S, 5),
    maxRetries: clamp(row.max_retries ?? 3, 0, MAX_RETRIES, 3),
    secured: Number(row.enable_security) === 1,
    queue: /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(row.background_jobs_queue ?? '')) ? String(row.background_jobs_queue) : undefined,
  };
}

/** Registers the delivery job on the site's queue. */
export function registerDeliveryJob(deps: DeliveryDeps): void {
  // The job itself only fails on database trouble; the HTTP outcome is recorded on the log.
  deps.jobs.register(DELIVER_JOB, (args: { log?: unknown }) => deliver(deps, String(args.log ?? '')), { timeout: 120_000, maxRetries: 5 });
}

/**
 * One attempt. The first renders the request from the document stored at the match, as the
 * webhook's owner may read it (render-as-owner.ts), and keeps it on the log; every attempt then
 * sends that request with fresh `webhook-timestamp` and signatures (the same `webhook-id` every
 * time) and records the outcome; a retryable failure with retries left becomes Failed with
 * `next_retry` and enqueues the next attempt in the same transaction.
 */
export async function deliver(deps: DeliveryDeps, logName: string): Promise<void> {
  const scope = (q: Queryable): LogScope => ({ q, dialect: deps.db.dialect, metas: deps.metas, timeZone: deps.timeZone() });
  const log = await deps.db.read((q) => loadDelivery(scope(q), logName));
  if (!log || (log.status !== 'Pending' && log.status !== 'Failed')) return;
  const read = await deps.db.read(async (q) => {
    const hook = await hookSettings(q, deps, log.webhook);
    const secret =
      hook?.secured === true
        ? await getFieldSecret(q, deps.db.dialect, { doctype: WEBHOOK, name: log.webhook, fieldname: 'webhook_secret' }, deps.encryptionKey)
        : undefined;
    const snapshot = hook?.enabled ? await readSnapshot(q, deps.db.dialect, log.name) : undefined;
    const [def] = snapshot ? await readWebhookDefs({ q, dialect: deps.db.dialect, metas: deps.metas }, log.webhook) : [];
    return { hook, secret, snapshot, def };
  });
  const { hook, secret, snapshot, def } = read;
  const stop = (error: string) =>
    finish(deps, scope, log, { status: 'Exhausted', attempt: log.attempt, nextRetry: null, responseStatus: null, response: '', error });
  if (!hook?.enabled) return stop('The webhook is disabled or was deleted');
  let request: StoredRequest = { body: log.data, headers: log.headers };
  let rendered: StoredRequest | undefined;
  if (snapshot && def) {
    // Requests waiting for the event loop go first: renders never follow one another without a break.
    await new Promise((resolve) => setImmediate(resolve));
    const prepared = await prepareRequest(deps, def, { doctype: log.reference_doctype, event: log.event }, snapshot);
    if ('unseen' in prepared) return forget(deps, scope, log);
    if ('refused' in prepared) return stop(prepared.refused);
    request = rendered = prepared.request;
  } else if (Object.keys(log.headers).length === 0) {
    return stop('This delivery has no request to send: it was never rendered');
  }
  const attempt = log.attempt + 1;
  const headers = attemptHeaders(request.headers, { id: log.webhook_id, timestamp: Math.floor(deps.jobs.clock.now() / 1000), body: request.body, secret });
  const result = await sendWebhookRequest({
    url: log.url,
    method: log.request_method,
    headers,
    body: log.request_method === 'GET' ? '' : request.body,
    timeoutMs: hook.timeoutS * 1000,
    targets: deps.targets,
  });
  const verdict = judge(result);
  const base = {
    attempt,
    responseStatus: result.status ?? null,
    response: result.body,
    request: rendered,
    responseHeaders: result.status === undefined ? undefined : result.headers,
  };
  if (verdict.kind === 'delivered') {
    await finish(deps, scope, log, { ...base, status: 'Delivered', nextRetry: null, error: null });
    return;
  }
  const error = result.error ?? `HTTP ${result.status}`;
  if (verdict.kind === 'retry' && attempt <= hook.maxRetries) {
    const at = deps.jobs.clock.now() + nextRetryDelay(attempt, verdict.retryAfterMs, deps.random);
    await finish(deps, scope, log, { ...base, status: 'Failed', nextRetry: at, error }, { at, queue: hook.queue });
    return;
  }
  await finish(deps, scope, log, { ...base, status: 'Exhausted', nextRetry: null, error });
}

/**
 * Removes a delivery whose document its webhook's owner may not see, with its document, unless
 * another attempt was recorded since this one started (docs/webhooks.md "Whose eyes").
 */
async function forget(deps: DeliveryDeps, scope: (q: Queryable) => LogScope, log: DeliveryRow): Promise<void> {
  await deps.db.transaction(async (q) => {
    const current = await loadDelivery(scope(q), log.name, { forUpdate: true });
    if (!current || current.attempt !== log.attempt) return;
    await deleteDelivery(scope(q), log.name);
    await dropSnapshot(q, deps.db.dialect, log.name);
  });
}

/**
 * Records the attempt unless another one was recorded since this one started (a "retry now" that
 * raced it), and enqueues the next attempt in the same transaction when there is one.
 */
async function finish(
  deps: DeliveryDeps,
  scope: (q: Queryable) => LogScope,
  log: DeliveryRow,
  record: AttemptRecord,
  next?: { at: number; queue: string | undefined },
): Promise<void> {
  await deps.db.transaction(async (q) => {
    const current = await loadDelivery(scope(q), log.name, { forUpdate: true });
    if (!current || current.attempt !== log.attempt) return;
    await recordAttempt(scope(q), log.name, record);
    // Rendered, refused or given up: the document is no longer needed (a no-op for later attempts).
    await dropSnapshot(q, deps.db.dialect, log.name);
    if (next) {
      await deps.jobs.enqueue(
        DELIVER_JOB,
        { log: log.name },
        { unit: { q }, at: next.at, jobId: `webhook:${log.name}:${record.attempt + 1}`, queue: next.queue },
      );
    }
  });
}
