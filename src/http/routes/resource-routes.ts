import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowed } from '../../errors/index.js';
import { listRows, planList, runList } from '../../documents/list-documents.js';
import { presentDoc, type Presentation } from '../../documents/present-document.js';
import type { DocContext } from '../../documents/doc-context.js';
import { invokeDocMethod } from '../../rpc/doc-methods.js';
import type { Site } from '../../site/site.js';
import { sendJsonRows, type JsonEnvelope } from '../json-row-stream.js';
import { documentPayload, requestArgs } from '../request-args.js';
import { httpExchange, requestContext, type RequestContext } from '../request-context.js';
import { requestVerb } from '../request-verb.js';

/** The bodies of a streamed list: the same `{"data": [...]}` (v2: and `has_next_page`) as a page's. */
const V1_ROWS: JsonEnvelope = { head: '{"data":[', tail: ']}' };
const V2_ROWS: JsonEnvelope = { head: '{"data":[', tail: '],"has_next_page":false}' };

interface Target {
  doctype: string;
  name: string | undefined;
}

/** The DocType and name of a resource URL; the name is the rest of the path, so it may hold `/`. */
function target(req: FastifyRequest): Target {
  const params = req.params as { doctype: string; '*'?: string };
  const rest = params['*'];
  return { doctype: params.doctype, name: rest === undefined || rest === '' ? undefined : rest.replace(/\/$/, '') };
}

/** Collection and document endpoints for one API version. */
function registerVersion(app: FastifyInstance, site: Site, base: string, style: Presentation): void {
  const okDelete = style === 'v1' ? { message: 'ok' } : { data: 'ok' };

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${base}/:doctype`,
    handler: async (req, reply) => {
      const { doctype } = target(req);
      const rc = await requestContext(site, req);
      if (requestVerb(req) === 'GET') {
        const args = requestArgs(req);
        const result = await site.read(rc.principal, async (ctx) => {
          const plan = await planList(ctx, doctype, args, style);
          if (plan.pageLength > 0) return runList(ctx, plan);
          // Every row: streamed from the cursor inside this unit of work, never held whole.
          await sendJsonRows(reply, listRows(ctx, plan), style === 'v1' ? V1_ROWS : V2_ROWS);
          return undefined;
        });
        if (result === undefined) return reply;
        return style === 'v1' ? { data: result.rows } : { data: result.rows, has_next_page: result.hasNextPage };
      }
      if (req.method === 'POST') {
        const payload = documentPayload(requestArgs(req));
        const doc = await site.write(
          rc.principal,
          (ctx) => site.documents.insert(ctx, doctype, payload, { keepClientName: style === 'v2' }),
          { sid: rc.sid },
        );
        return { data: presentDoc(doc, style) };
      }
      return notAllowed(reply, req, 'GET, POST');
    },
  });

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${base}/:doctype/*`,
    handler: async (req, reply) => {
      const { doctype, name } = target(req);
      if (name === undefined) return notAllowed(reply, req, 'GET, POST');
      const rc = await requestContext(site, req);
      const verb = requestVerb(req);
      const runMethod = style === 'v1' && (verb === 'GET' || verb === 'POST') ? runMethodName(req) : undefined;
      if (runMethod !== undefined) return { data: (await runDocumentMethod(site, req, reply, rc, doctype, name, runMethod)) ?? null };
      switch (verb) {
        case 'GET': {
          const doc = await site.read(rc.principal, (ctx) => site.documents.get(ctx, doctype, name));
          return { data: presentDoc(doc, style) };
        }
        case 'PATCH':
        case 'PUT': {
          if (req.method === 'PATCH' && style === 'v1') return notAllowed(reply, req, 'GET, PUT, DELETE');
          const patch = documentPayload(requestArgs(req));
          const doc = await site.write(rc.principal, (ctx) => site.documents.update(ctx, doctype, name, patch), { sid: rc.sid });
          return { data: presentDoc(doc, style) };
        }
        case 'DELETE':
          await site.write(
            rc.principal,
            (ctx) => site.documents.delete(ctx, doctype, name),
            { sid: rc.sid },
          );
          reply.code(202);
          return okDelete;
        default:
          return notAllowed(reply, req, 'GET, PUT, DELETE');
      }
    },
  });
}

/** The `run_method` of a v1 document request, from the query string or the arguments. */
function runMethodName(req: FastifyRequest): string | undefined {
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.run_method;
  // Without a body the arguments are the query string: no need to build them.
  const raw = Array.isArray(fromQuery) ? fromQuery[0] : fromQuery ?? (req.body === undefined ? undefined : requestArgs(req).run_method);
  return typeof raw === 'string' && raw !== '' ? raw : undefined;
}

/**
 * `?run_method=<m>` on a v1 document (reference `execute_doc_method`): a whitelisted document method
 * with the other arguments as keywords; GET runs read-only and needs read permission, POST runs
 * in one transaction and needs write permission.
 */
async function runDocumentMethod(
  site: Site,
  req: FastifyRequest,
  reply: FastifyReply,
  rc: RequestContext,
  doctype: string,
  name: string,
  method: string,
): Promise<unknown> {
  const args = requestArgs(req);
  delete args.run_method;
  const http = httpExchange(req, reply, rc.sid);
  const read = requestVerb(req) === 'GET';
  const work = (ctx: DocContext) => invokeDocMethod({ ctx, site, http, doctype, name, method, args, right: read ? 'read' : 'write' });
  const outcome = read
    ? await site.read(rc.principal, work, { sid: rc.sid })
    : await site.write(rc.principal, work, { sid: rc.sid });
  return outcome.result;
}

function notAllowed(reply: FastifyReply, req: FastifyRequest, allow: string): never {
  reply.header('Allow', allow);
  throw new MethodNotAllowed(`${req.method} is not allowed on ${req.url.split('?')[0]}`);
}

/** `/api/resource` and its `/api/v1` alias (v1 conventions), `/api/v2/document` (v2 conventions). */
export function registerResourceRoutes(app: FastifyInstance, site: Site): void {
  registerVersion(app, site, '/api/resource', 'v1');
  registerVersion(app, site, '/api/v1/resource', 'v1');
  registerVersion(app, site, '/api/v2/document', 'v2');
}
