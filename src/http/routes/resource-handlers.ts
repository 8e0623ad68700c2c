import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, type MaybePromise } from '../../async/maybe-promise.js';
import { MethodNotAllowed } from '../../errors/index.js';
import { listRows, planList, runList, type ListPlan, type ListResult } from '../../documents/lists/list-documents.js';
import { messagesBody, presentDoc, type ApiVersion } from '../presentation.js';
import type { DocContext } from '../../documents/doc-context.js';
import { updateChildRow } from '../../documents/child-row-operations.js';
import { LinkExpander, MAX_EXPAND_ROWS, parseExpand, wantsAllLinks } from '../../documents/links/expand-links.js';
import { DataError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';
import { invokeDocMethod } from '../../rpc/doc-methods.js';
import type { Site } from '../../site/site.js';
import { listRequest } from '../list-params.js';
import { sendJsonRows, type JsonEnvelope } from '../json-row-stream.js';
import { documentPayload, requestArgs } from '../request-args.js';
import { httpExchange, requestContext, type RequestContext } from '../request-context.js';

/** The bodies of a streamed list: the same `{"data": [...]}` (v2: and `has_next_page`) as a page's. */
const V1_ROWS: JsonEnvelope = { head: '{"data":[', tail: ']}' };
const V2_ROWS: JsonEnvelope = { head: '{"data":[', tail: '],"has_next_page":false}' };

/** What a resource URL names: a DocType, and for document routes a name (and a document method). */
export interface ResourceTarget {
  readonly doctype: string;
  readonly name: string;
  readonly method?: string;
}

/** A resource handler: the request, its reply, and the target its route parsed out of the URL. */
export type ResourceHandler = (site: Site, req: FastifyRequest, reply: FastifyReply, target: ResourceTarget) => MaybePromise<unknown>;

/** `GET <base>/<DocType>`: a page of rows, or every row streamed when the page length is 0. */
export function listDocuments(style: ApiVersion): ResourceHandler {
  return (site, req, reply, { doctype }) =>
    andThen(requestContext(site, req), (rc) => {
      const { expand: rawExpand, ...args } = requestArgs(req);
      // A page without `expand` answers at once where every step can (docs/benchmarks.md "Where a GET's time goes").
      const result = site.read(rc.principal, (ctx) =>
        andThen(listRequest(ctx, doctype, args, style), ({ query, options }) =>
          andThen(planList(ctx, query, options), (plan): MaybePromise<ListResult | undefined> => {
            const expand = parseExpand(rawExpand, ctx.metas.get(doctype));
            if (expand) return expandedPage(ctx, site, plan, ctx.metas.get(doctype), expand, style);
            if (plan.pageLength > 0) return runList(ctx, plan);
            // Every row: streamed from the cursor inside this unit of work, never held whole.
            return sendJsonRows(reply, listRows(ctx, plan), style === 'v1' ? V1_ROWS : V2_ROWS).then(() => undefined);
          }),
        ),
      );
      return andThen(result, (page) => (page === undefined ? reply : pageBody(page, rc, style)));
    });
}

/**
 * A page of a list without `expand`, in one read unit: at once where every step can answer at
 * once; undefined, having read nothing, when the arguments ask for every row (those are streamed
 * by the route). The fast lane (document-fast-lane.ts) answers with it.
 */
export function listPage(site: Site, rc: RequestContext, doctype: string, args: Record<string, unknown>, style: ApiVersion): MaybePromise<object | undefined> {
  const result = site.read(rc.principal, (ctx) =>
    andThen(listRequest(ctx, doctype, args, style), ({ query, options }) =>
      andThen(planList(ctx, query, options), (plan) => (plan.pageLength > 0 ? runList(ctx, plan) : undefined)),
    ),
  );
  return andThen(result, (page) => (page === undefined ? undefined : pageBody(page, rc, style)));
}

/** A page's answer body. */
function pageBody(page: ListResult, rc: RequestContext, style: ApiVersion): object {
  return style === 'v1'
    ? { data: page.rows, ...messagesBody(rc.messages, style) }
    : { data: page.rows, has_next_page: page.hasNextPage, ...messagesBody(rc.messages, style) };
}

/**
 * A page of a list with `expand`: each named Link of each row replaced by the linked document the
 * caller may read. Needs a page length (at most MAX_EXPAND_ROWS): every row is held to expand it.
 */
async function expandedPage(ctx: DocContext, site: Site, plan: ListPlan, meta: Meta, fields: string[], style: ApiVersion): Promise<ListResult> {
  if (plan.pageLength === 0 || plan.pageLength > MAX_EXPAND_ROWS) {
    throw new DataError(`expand needs a page length from 1 to ${MAX_EXPAND_ROWS}`);
  }
  const page = await runList(ctx, plan);
  const expander = new LinkExpander(ctx, site.documents, (doc) => presentDoc(doc, style));
  const keys = plan.columns.map((c) => c.key);
  const rows: unknown[] = [];
  for (const row of page.rows) {
    // Rows as lists (as_dict false) are expanded through a dict of their columns.
    const doc = Array.isArray(row) ? Object.fromEntries(keys.map((k, i) => [k, row[i]])) : { ...(row as Record<string, unknown>) };
    await expander.expand(meta, doc, fields);
    rows.push(Array.isArray(row) ? keys.map((k) => doc[k]) : doc);
  }
  return { rows, hasNextPage: page.hasNextPage };
}

/** `POST <base>/<DocType>`: inserts the document; v2 keeps a client `name` whatever the naming rule. */
export function insertDocument(style: ApiVersion): ResourceHandler {
  return async (site, req, _reply, { doctype }) => {
    const rc = await requestContext(site, req);
    const payload = documentPayload(requestArgs(req));
    const doc = await site.write(rc.principal, (ctx) => site.documents.insert(ctx, doctype, payload, { keepClientName: style === 'v2' }), rc);
    return { data: presentDoc(doc, style), ...messagesBody(rc.messages, style) };
  };
}

/**
 * `GET <base>/<DocType>/<name>`. Without `expand` every step can answer at once (a cached token and
 * principal, permissions the principal decides, SQLite's in-process read), and then the handler
 * answers without a promise (docs/benchmarks.md "Where a GET's time goes").
 */
export function readDocument(style: ApiVersion): ResourceHandler {
  return (site, req, _reply, { doctype, name }) =>
    andThen(requestContext(site, req), (rc) => {
      const args = requestArgs(req);
      if (args.expand === undefined && args.expand_links === undefined) return documentBody(site, rc, doctype, name, style);
      const all = wantsAllLinks(args.expand_links);
      const read = site.read(
        rc.principal,
        (ctx) => {
          const fields = all ? undefined : parseExpand(args.expand, ctx.metas.get(doctype));
          if (!all && !fields) return andThen(site.documents.get(ctx, doctype, name), (doc) => presentDoc(doc, style));
          return expandedDocument(ctx, site, doctype, name, style, fields);
        },
        rc,
      );
      return andThen(read, (doc) => ({ data: doc, ...messagesBody(rc.messages, style) }));
    });
}

/**
 * The answer to a GET of one document without `expand`, in one read unit: at once where every step
 * can answer at once. The route and the fast lane (document-fast-lane.ts) both answer with it.
 */
export function documentBody(site: Site, rc: RequestContext, doctype: string, name: string, style: ApiVersion): MaybePromise<Record<string, unknown>> {
  const read = site.read(rc.principal, (ctx) => andThen(site.documents.get(ctx, doctype, name), (doc) => presentDoc(doc, style)), rc);
  return andThen(read, (doc) => ({ data: doc, ...messagesBody(rc.messages, style) }));
}

/** A document with its Links replaced by the linked documents the caller may read (`expand`, `expand_links`). */
async function expandedDocument(
  ctx: DocContext,
  site: Site,
  doctype: string,
  name: string,
  style: ApiVersion,
  fields: string[] | undefined,
): Promise<Record<string, unknown>> {
  const out = structuredClone(presentDoc(await site.documents.get(ctx, doctype, name), style));
  const expander = new LinkExpander(ctx, site.documents, (d) => presentDoc(d, style));
  if (fields) await expander.expand(ctx.metas.get(doctype), out, fields);
  else await expander.expandAll(ctx.metas.get(doctype), out);
  return out;
}

/**
 * `PUT` (v2 also `PATCH`) `<base>/<DocType>/<name>`: the fields sent change, the others stay; a
 * table field sent is the new table (rows named as stored are updated in place, rows without a
 * name added, rows left out removed). v2 also takes one child row by its own DocType and name, as
 * the reference does: the row changes and its parent is saved (write permission on the parent);
 * the answer is the row. v2 drops a `flags` key, as the reference does.
 */
export function updateDocument(style: ApiVersion): ResourceHandler {
  return async (site, req, _reply, { doctype, name }) => {
    const rc = await requestContext(site, req);
    const patch = documentPayload(requestArgs(req));
    if (style === 'v2') delete patch.flags;
    const doc = await site.write(
      rc.principal,
      async (ctx) => {
        if (style === 'v2' && ctx.metas.has(doctype) && ctx.metas.get(doctype).isChild) return updatedRow(ctx, site, doctype, name, patch);
        return site.documents.update(ctx, doctype, name, patch);
      },
      rc,
    );
    return { data: presentDoc(doc, style), ...messagesBody(rc.messages, style) };
  };
}

/** Saves one child row's changes through its parent and answers the row as saved. */
async function updatedRow(ctx: DocContext, site: Site, doctype: string, name: string, patch: Record<string, unknown>): Promise<Record<string, unknown>> {
  const parent = await updateChildRow(ctx, site.documents, doctype, name, patch);
  for (const value of Object.values(parent)) {
    if (!Array.isArray(value)) continue;
    const row = value.find(
      (r) => r !== null && typeof r === 'object' && (r as Record<string, unknown>).name === name && (r as Record<string, unknown>).doctype === doctype,
    );
    if (row) return row as Record<string, unknown>;
  }
  // The parent hides the row's table from this caller (a permlevel it may not read): answer nothing of it.
  return { name, doctype };
}

/** `DELETE <base>/<DocType>/<name>`: 202 with `ok`. */
export function deleteDocument(style: ApiVersion): ResourceHandler {
  const ok = style === 'v1' ? { message: 'ok' } : { data: 'ok' };
  return async (site, req, reply, { doctype, name }) => {
    const rc = await requestContext(site, req);
    await site.write(rc.principal, (ctx) => site.documents.delete(ctx, doctype, name), rc);
    reply.code(202);
    return { ...ok, ...messagesBody(rc.messages, style) };
  };
}

/** The `run_method` of a v1 document request, from the query string or the arguments. */
export function runMethodName(req: FastifyRequest): string | undefined {
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.run_method;
  // Without a body the arguments are the query string: no need to build them.
  const raw = Array.isArray(fromQuery) ? fromQuery[0] : (fromQuery ?? (req.body === undefined ? undefined : requestArgs(req).run_method));
  return typeof raw === 'string' && raw !== '' ? raw : undefined;
}

/**
 * A whitelisted document method with the request's other arguments as keywords (v1 `run_method`,
 * v2 `…/method/<m>`): GET runs read-only and needs read permission, POST runs in one
 * transaction and needs write permission.
 */
export async function runDocumentMethod(
  site: Site,
  req: FastifyRequest,
  reply: FastifyReply,
  target: ResourceTarget & { method: string },
): Promise<{ result: unknown; doc: Record<string, unknown>; messages: Record<string, unknown> }> {
  const rc = await requestContext(site, req);
  const args = requestArgs(req);
  delete args.run_method;
  const http = httpExchange(req, reply, rc.sid);
  const read = req.method === 'GET' || req.method === 'HEAD';
  const { doctype, name, method } = target;
  const work = (ctx: DocContext) =>
    invokeDocMethod({ ctx, services: site.services, docMethods: site.methods.docMethods, http, doctype, name, method, args, right: read ? 'read' : 'write' });
  const outcome = read ? await site.read(rc.principal, work, rc) : await site.write(rc.principal, work, rc);
  return { ...outcome, messages: messagesBody(rc.messages, req.url.startsWith('/api/v2/') ? 'v2' : 'v1') };
}

/** A handler answering 405 with the verbs the URL does serve in `Allow`. */
export function notAllowed(allow: string): ResourceHandler {
  return async (_site, req, reply) => refuseVerb(req, reply, allow);
}

export function refuseVerb(req: FastifyRequest, reply: FastifyReply, allow: string): never {
  reply.header('Allow', allow);
  throw new MethodNotAllowed(`${req.method} is not allowed on ${req.url.split('?')[0]}`);
}
