import type { FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowed } from '../../errors/index.js';
import { listRows, planList, runList } from '../../documents/list-documents.js';
import { presentDoc, type Presentation } from '../../documents/present-document.js';
import type { DocContext } from '../../documents/doc-context.js';
import { messagesBody } from '../../documents/user-messages.js';
import { invokeDocMethod } from '../../rpc/doc-methods.js';
import type { Site } from '../../site/site.js';
import { sendJsonRows, type JsonEnvelope } from '../json-row-stream.js';
import { documentPayload, requestArgs } from '../request-args.js';
import { httpExchange, requestContext } from '../request-context.js';

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
export type ResourceHandler = (site: Site, req: FastifyRequest, reply: FastifyReply, target: ResourceTarget) => Promise<unknown>;

/** `GET <base>/<DocType>`: a page of rows, or every row streamed when the page length is 0. */
export function listDocuments(style: Presentation): ResourceHandler {
  return async (site, req, reply, { doctype }) => {
    const rc = await requestContext(site, req);
    const args = requestArgs(req);
    const result = await site.read(rc.principal, async (ctx) => {
      const plan = await planList(ctx, doctype, args, style);
      if (plan.pageLength > 0) return runList(ctx, plan);
      // Every row: streamed from the cursor inside this unit of work, never held whole.
      await sendJsonRows(reply, listRows(ctx, plan), style === 'v1' ? V1_ROWS : V2_ROWS);
      return undefined;
    });
    if (result === undefined) return reply;
    return style === 'v1' ? { data: result.rows, ...messagesBody(rc.messages, style) } : { data: result.rows, has_next_page: result.hasNextPage, ...messagesBody(rc.messages, style) };
  };
}

/** `POST <base>/<DocType>`: inserts the document; v2 keeps a client `name` whatever the naming rule. */
export function insertDocument(style: Presentation): ResourceHandler {
  return async (site, req, _reply, { doctype }) => {
    const rc = await requestContext(site, req);
    const payload = documentPayload(requestArgs(req));
    const doc = await site.write(
      rc.principal,
      (ctx) => site.documents.insert(ctx, doctype, payload, { keepClientName: style === 'v2' }),
      rc,
    );
    return { data: presentDoc(doc, style), ...messagesBody(rc.messages, style) };
  };
}

/** `GET <base>/<DocType>/<name>`. */
export function readDocument(style: Presentation): ResourceHandler {
  return async (site, req, _reply, { doctype, name }) => {
    const rc = await requestContext(site, req);
    const doc = await site.read(rc.principal, (ctx) => site.documents.get(ctx, doctype, name), rc);
    return { data: presentDoc(doc, style), ...messagesBody(rc.messages, style) };
  };
}

/** `PUT` (v2 also `PATCH`) `<base>/<DocType>/<name>`: the fields sent change, the others stay. */
export function updateDocument(style: Presentation): ResourceHandler {
  return async (site, req, _reply, { doctype, name }) => {
    const rc = await requestContext(site, req);
    const patch = documentPayload(requestArgs(req));
    const doc = await site.write(rc.principal, (ctx) => site.documents.update(ctx, doctype, name, patch), rc);
    return { data: presentDoc(doc, style), ...messagesBody(rc.messages, style) };
  };
}

/** `DELETE <base>/<DocType>/<name>`: 202 with `ok`. */
export function deleteDocument(style: Presentation): ResourceHandler {
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
  const raw = Array.isArray(fromQuery) ? fromQuery[0] : fromQuery ?? (req.body === undefined ? undefined : requestArgs(req).run_method);
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
  const work = (ctx: DocContext) => invokeDocMethod({ ctx, site, http, doctype, name, method, args, right: read ? 'read' : 'write' });
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
