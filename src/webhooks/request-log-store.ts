import { randomUUID } from 'node:crypto';
import { now } from '../datetime/clock.js';
import { storedDatetime } from '../datetime/stored-datetime.js';
import { hashName } from '../documents/naming/hash-name.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { rowChunks, type RowChunks } from '../storage/row-chunks.js';
import { ShapeCache } from '../storage/statement-shape.js';
import type { Meta } from '../meta/meta.js';
import { WEBHOOK_REQUEST_LOG } from './doctypes/index.js';
import type { StoredRequest } from './webhook-body.js';

/** Delivery states of a Webhook Request Log (docs/webhooks.md "Delivery"). */
export type DeliveryStatus = 'Pending' | 'Delivered' | 'Failed' | 'Exhausted';

/** What the store needs: the connection, the dialect, the metadata and the site's time zone. */
export interface LogScope {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly metas: MetaRegistry;
  readonly timeZone: string;
}

/** A new delivery: the stored request and what it is about. */
export interface NewDelivery {
  readonly webhook: string;
  readonly doctype: string;
  readonly docname: string;
  readonly event: string;
  readonly user: string;
  readonly url: string;
  readonly method: string;
  /** The request to send; absent when the first attempt renders it (docs/webhooks.md "How a change becomes a request"). */
  readonly request?: StoredRequest;
  /** The Standard Webhooks event id (kept across retries); a fresh one when omitted. */
  readonly webhookId?: string;
  /** For a request that could not even be built: stored as Exhausted with this error. */
  readonly error?: string;
}

const LOG_COLUMNS = [
  'name',
  'owner',
  'creation',
  'modified',
  'modified_by',
  'docstatus',
  'idx',
  'webhook',
  'reference_doctype',
  'reference_document',
  'event',
  'status',
  'attempt',
  'user',
  'request_method',
  'url',
  'webhook_id',
  'headers',
  'data',
  'error',
] as const;

/** The log INSERT compiled once per dialect and metadata version, in a few sizes for the outbox's batches. */
const insertChunks = new ShapeCache<Dialect, Meta, RowChunks<LogRow>>();

type LogRow = Record<(typeof LOG_COLUMNS)[number], unknown>;

function logInserts(scope: LogScope): RowChunks<LogRow> {
  const meta = scope.metas.get(WEBHOOK_REQUEST_LOG);
  return insertChunks.get(scope.dialect, meta, () => rowChunks(LOG_COLUMNS, (rows) => scope.dialect.builder.insertInto(meta.tableName).values(rows).compile()));
}

function table(scope: LogScope): string {
  return scope.metas.get(WEBHOOK_REQUEST_LOG).tableName;
}

/**
 * Writes a Webhook Request Log row on the caller's connection (inside the caller's transaction:
 * it exists only if that commits). System-written: no permission check, no document hooks.
 */
export async function insertDelivery(scope: LogScope, d: NewDelivery): Promise<string> {
  const name = hashName();
  const row = logRow(name, now(scope.timeZone), d);
  const [insert] = logInserts(scope)([row]);
  await scope.q.run(insert!);
  return name;
}

/** A log to write with {@link insertDeliveries}: its name and creation time are already fixed. */
export interface NamedDelivery extends NewDelivery {
  readonly name: string;
  /** Epoch ms of the match that caused it. */
  readonly at: number;
}

/** Writes several Webhook Request Log rows with a few multi-row INSERTs (the outbox's batches; row-chunks.ts). */
export async function insertDeliveries(scope: LogScope, deliveries: readonly NamedDelivery[]): Promise<void> {
  const rows = deliveries.map((d) => logRow(d.name, storedDatetime(d.at, scope.timeZone), d));
  for (const statement of logInserts(scope)(rows)) await scope.q.run(statement);
}

function logRow(name: string, stamp: string, d: NewDelivery): LogRow {
  return {
    name,
    owner: d.user,
    creation: stamp,
    modified: stamp,
    modified_by: d.user,
    docstatus: 0,
    idx: 0,
    webhook: d.webhook,
    reference_doctype: d.doctype,
    reference_document: d.docname,
    event: d.event,
    status: d.error ? 'Exhausted' : 'Pending',
    attempt: 0,
    user: d.user,
    request_method: d.method,
    url: d.url,
    webhook_id: d.webhookId ?? `msg_${randomUUID()}`,
    headers: JSON.stringify(d.request?.headers ?? {}),
    data: d.request?.body ?? '',
    error: d.error ?? null,
  };
}

/** A log row as delivery reads it. */
export interface DeliveryRow {
  readonly name: string;
  readonly webhook: string;
  readonly reference_doctype: string;
  readonly reference_document: string;
  readonly event: string;
  readonly status: DeliveryStatus;
  readonly attempt: number;
  readonly user: string;
  readonly url: string;
  readonly request_method: string;
  readonly webhook_id: string;
  readonly headers: Record<string, string>;
  readonly data: string;
}

/** One log row, locked for the caller's transaction where the engine can. */
export async function loadDelivery(scope: LogScope, name: string, options: { forUpdate?: boolean } = {}): Promise<DeliveryRow | undefined> {
  let query = scope.dialect.builder.selectFrom(table(scope)).selectAll().where('name', '=', name);
  if (options.forUpdate && scope.dialect.supportsRowLocks) query = query.forUpdate();
  const [row] = await scope.q.all<Row>(query.compile());
  if (!row) return undefined;
  let headers: Record<string, string> = {};
  try {
    headers = JSON.parse(String(row.headers ?? '{}')) as Record<string, string>;
  } catch {
    // Written by insertDelivery as JSON; a hand-edited row is sent without its headers.
  }
  return {
    name: String(row.name),
    webhook: String(row.webhook ?? ''),
    reference_doctype: String(row.reference_doctype ?? ''),
    reference_document: String(row.reference_document ?? ''),
    event: String(row.event ?? ''),
    status: String(row.status) as DeliveryStatus,
    attempt: Number(row.attempt ?? 0),
    user: String(row.user ?? ''),
    url: String(row.url ?? ''),
    request_method: String(row.request_method || 'POST'),
    webhook_id: String(row.webhook_id ?? ''),
    headers,
    data: String(row.data ?? ''),
  };
}

/** The outcome of an attempt, as the log shows it. */
export interface AttemptRecord {
  readonly status: DeliveryStatus;
  readonly attempt: number;
  readonly nextRetry: number | null;
  readonly responseStatus: number | null;
  readonly response: string;
  readonly error: string | null;
  /** The request as rendered at the first attempt (docs/webhooks.md "How a change becomes a request"). */
  readonly request?: StoredRequest;
  /** The answer's headers, when an answer came. */
  readonly responseHeaders?: Readonly<Record<string, unknown>>;
}

/** The most of an answer's body the log keeps (the sender reads no more than 4 KiB). */
const MAX_LOGGED = 4_096;

/** Records an attempt on the log row. */
export async function recordAttempt(scope: LogScope, name: string, r: AttemptRecord): Promise<void> {
  await scope.q.run(
    scope.dialect.builder
      .updateTable(table(scope))
      .set({
        status: r.status,
        attempt: r.attempt,
        next_retry: r.nextRetry === null ? null : storedDatetime(r.nextRetry, scope.timeZone),
        response_status: r.responseStatus,
        response: r.response.length > MAX_LOGGED ? `${r.response.slice(0, MAX_LOGGED)}…` : r.response,
        error: r.error,
        ...(r.request ? { headers: JSON.stringify(r.request.headers), data: r.request.body } : {}),
        ...(r.responseHeaders ? { response_headers: JSON.stringify(r.responseHeaders) } : {}),
        modified: now(scope.timeZone),
      })
      .where('name', '=', name)
      .compile(),
  );
}

/** Marks a log due again now (retry now): Pending, no next retry. */
export async function markPending(scope: LogScope, name: string): Promise<void> {
  await scope.q.run(
    scope.dialect.builder
      .updateTable(table(scope))
      .set({ status: 'Pending', next_retry: null, modified: now(scope.timeZone) })
      .where('name', '=', name)
      .compile(),
  );
}

/** Removes a log row that must leave no trace (a document its webhook's owner may not see). */
export async function deleteDelivery(scope: LogScope, name: string): Promise<void> {
  await scope.q.run(scope.dialect.builder.deleteFrom(table(scope)).where('name', '=', name).compile());
}
