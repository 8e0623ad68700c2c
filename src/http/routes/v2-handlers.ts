import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import type { FastifyRequest } from 'fastify';
import { countDocuments } from '../../documents/lists/list-documents.js';
import { messagesBody, presentDoc } from '../presentation.js';
import { readableDefinition } from '../../documents/readable-definition.js';
import { withSavepoint } from '../../documents/savepoint.js';
import type { DocContext } from '../../documents/doc-context.js';
import { DataError, FwError, PermissionError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import { pick } from '../../rpc/builtin/client-args.js';
import type { Site } from '../../site/site.js';
import { requestArgs } from '../request-args.js';
import { requestContext, type RequestContext } from '../request-context.js';
import { runDocumentMethod, type ResourceHandler } from './resource-handlers.js';

/** The most items one v2 bulk request may carry; the reference queues larger ones, fw refuses them (docs/api.md "API v2"). */
export const V2_BULK_LIMIT = 200;

/**
 * `GET /api/v2/doctype/<DocType>/meta`: the DocType's definition as the caller may see it (Guest
 * 403, unknown 404, a DocType they may not read 403, fields above their permlevels left out): a
 * deliberate difference from the reference, which answers any definition (docs/api.md "API v2").
 */
export const doctypeMeta: ResourceHandler = async (site, req, _reply, { doctype }) => {
  const rc = await requestContext(site, req);
  if (rc.principal.isGuest) {
    throw new PermissionError('Not permitted', { messages: [{ message: 'Login required to read DocType metadata', title: 'Not permitted' }] });
  }
  return site.read(rc.principal, async (ctx) => ({ data: await readableDefinition(ctx, doctype) }));
};

/** `GET /api/v2/doctype/<DocType>/count`: how many documents the caller may see match `filters` / `or_filters`. */
export const doctypeCount: ResourceHandler = async (site, req, _reply, { doctype }) => {
  const rc = await requestContext(site, req);
  const args = pick(requestArgs(req), ['filters', 'or_filters', 'parent']);
  return { data: await site.read(rc.principal, async (ctx) => countDocuments(ctx, await listQueryAfterAccess(ctx, doctype, args))) };
};

/** Standard keys a copy leaves out, on the document and on its child rows. */
const NOT_COPIED = ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus'];

/** The document as a new one: no name, owner, timestamps or docstatus, no amendment link; null fields dropped. */
function copyOf(doc: Doc, top: boolean): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) {
    if (v === null || v === undefined || NOT_COPIED.includes(k) || k.startsWith('_')) continue;
    if (top && (k === 'amended_from' || k === 'amendment_date')) continue;
    out[k] = Array.isArray(v) && v.every((r) => r !== null && typeof r === 'object' && 'doctype' in r) ? v.map((r) => copyOf(r as Doc, false)) : v;
  }
  return out;
}

/** `GET /api/v2/document/<DocType>/<name>/copy`: a readable document as the body of a new one (not stored). */
export const copyDocument: ResourceHandler = async (site, req, _reply, { doctype, name }) => {
  const rc = await requestContext(site, req);
  const doc = await site.read(rc.principal, (ctx) => site.documents.get(ctx, doctype, name), rc);
  return { data: copyOf(doc, true) };
};

/** `GET|POST /api/v2/document/<DocType>/<name>/method/<m>`: `{data: <result>, docs: [<document>]}`. */
export const documentMethod: ResourceHandler = async (site, req, reply, target) => {
  const outcome = await runDocumentMethod(site, req, reply, { ...target, method: target.method ?? '' });
  return { data: outcome.result ?? null, docs: [presentDoc(outcome.doc, 'v2')], ...outcome.messages };
};

/** The list a bulk request carries under `key`, or a 417 naming it. */
function bulkItems(args: Record<string, unknown>, key: string): unknown[] {
  let value = args[key];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      // Refused just below, with the same message as any other non-list.
    }
  }
  if (!Array.isArray(value)) throw new DataError(`'${key}' must be a list`);
  if (value.length > V2_BULK_LIMIT) throw new DataError(`At most ${V2_BULK_LIMIT} items in one bulk request; got ${value.length}`);
  return value;
}

/** A document name of a bulk item: text, or a number taken as its text. */
function itemName(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw new DataError("'name' must be a string or integer");
}

function itemObject(value: unknown, what: string): Doc {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError(`Each item must be an object with ${what}`);
  return value as Doc;
}

interface BulkOutcome<T> {
  readonly done: T[];
  readonly failed: Array<Record<string, unknown>>;
}

/**
 * Runs each item in a savepoint of the request's one transaction: a refused item (any 4xx error)
 * is undone alone and reported with its message; anything else (a lost connection) fails the
 * whole request, as it must.
 */
async function eachInSavepoint<T>(
  ctx: DocContext,
  items: readonly unknown[],
  work: (item: unknown) => Promise<T>,
  failure: (item: unknown, error: string) => Record<string, unknown>,
): Promise<BulkOutcome<T>> {
  const done: T[] = [];
  const failed: Array<Record<string, unknown>> = [];
  for (const item of items) {
    try {
      done.push(await withSavepoint(ctx.q, () => work(item), ctx.unit));
    } catch (err) {
      if (!(err instanceof FwError) || err.status >= 500) throw err;
      failed.push(failure(item, err.message));
    }
  }
  return { done, failed };
}

function summary<T>(key: 'deleted' | 'updated', outcome: BulkOutcome<T>): Record<string, unknown> {
  const total = outcome.done.length + outcome.failed.length;
  return { [key]: outcome.done, failed: outcome.failed, total, success_count: outcome.done.length, failure_count: outcome.failed.length };
}

/** A field of an item when it is an object, for the failure report. */
function field(item: unknown, key: string): unknown {
  return item !== null && typeof item === 'object' && !Array.isArray(item) ? ((item as Doc)[key] ?? null) : null;
}

/**
 * One bulk request: the items under `key` of its arguments, each in a savepoint of one write unit,
 * so a refused item is reported in `failed` and the others are kept.
 */
async function runBulk<T>(
  site: Site,
  req: FastifyRequest,
  key: 'names' | 'docs',
  work: (ctx: DocContext, item: unknown) => Promise<T>,
  failure: (item: unknown, error: string) => Record<string, unknown>,
): Promise<{ outcome: BulkOutcome<T>; rc: RequestContext }> {
  const rc = await requestContext(site, req);
  const items = bulkItems(requestArgs(req), key);
  const outcome = await site.write(rc.principal, (ctx) => eachInSavepoint(ctx, items, (item) => work(ctx, item), failure), rc);
  return { outcome, rc };
}

/** The `doctype` of an item across DocTypes. */
function itemDocType(doctype: unknown): string {
  if (typeof doctype !== 'string' || doctype === '') throw new DataError("'doctype' must be a string");
  return doctype;
}

/** `POST /api/v2/document/<DocType>/bulk_delete` with `names`: each deleted or reported in `failed`. */
export const bulkDeleteDocuments: ResourceHandler = async (site, req, _reply, { doctype }) => {
  const { outcome, rc } = await runBulk(
    site,
    req,
    'names',
    async (ctx, raw) => {
      const name = itemName(raw);
      await site.documents.delete(ctx, doctype, name);
      return name;
    },
    (raw, error) => ({ name: raw ?? null, error }),
  );
  return { data: summary('deleted', outcome), ...messagesBody(rc.messages, 'v2') };
};

/** `POST /api/v2/document/<DocType>/bulk_update` with `docs` of `{name, ...fields}`; saved documents also in `docs`. */
export const bulkUpdateDocuments: ResourceHandler = async (site, req, _reply, { doctype }) => {
  const { outcome, rc } = await runBulk(
    site,
    req,
    'docs',
    async (ctx, raw) => {
      const { name, flags: _flags, ...fields } = itemObject(raw, "'name' and the fields to set");
      const saved = await site.documents.update(ctx, doctype, itemName(name), fields);
      return { name: String(saved.name), doc: saved };
    },
    (raw, error) => ({ name: field(raw, 'name'), error }),
  );
  const result = summary('updated', { done: outcome.done.map((d) => d.name), failed: outcome.failed });
  return { data: result, docs: outcome.done.map((d) => presentDoc(d.doc, 'v2')), ...messagesBody(rc.messages, 'v2') };
};

/** `POST /api/v2/method/bulk_delete` with `docs` of `{doctype, name}`, across DocTypes. */
export const bulkDeleteAcross: ResourceHandler = async (site, req) => {
  const { outcome, rc } = await runBulk(
    site,
    req,
    'docs',
    async (ctx, raw) => {
      const { doctype, name } = itemObject(raw, "'doctype' and 'name'");
      const key = itemName(name);
      await site.documents.delete(ctx, itemDocType(doctype), key);
      return { doctype, name: key };
    },
    (raw, error) => ({ doctype: field(raw, 'doctype'), name: field(raw, 'name'), error }),
  );
  return { data: summary('deleted', outcome), ...messagesBody(rc.messages, 'v2') };
};

/** `POST /api/v2/method/bulk_update` with `docs` of `{doctype, name, ...fields}`, across DocTypes. */
export const bulkUpdateAcross: ResourceHandler = async (site, req) => {
  const { outcome, rc } = await runBulk(
    site,
    req,
    'docs',
    async (ctx, raw) => {
      const { doctype, name, flags: _flags, ...fields } = itemObject(raw, "'doctype', 'name' and the fields to set");
      const saved = await site.documents.update(ctx, itemDocType(doctype), itemName(name), fields);
      return { key: { doctype, name: String(saved.name) }, doc: saved };
    },
    (raw, error) => ({ doctype: field(raw, 'doctype'), name: field(raw, 'name'), error }),
  );
  const result = summary('updated', { done: outcome.done.map((d) => d.key), failed: outcome.failed });
  return { data: result, docs: outcome.done.map((d) => presentDoc(d.doc, 'v2')), ...messagesBody(rc.messages, 'v2') };
};
