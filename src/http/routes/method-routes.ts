import { messagesBody } from '../presentation.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DoesNotExistError, PermissionError } from '../../errors/index.js';
import { bindArguments, mayCallMethod, type HttpVerb, type MethodDefinition } from '../../rpc/method-registry.js';
import type { Site } from '../../site/site.js';
import { routeByVerb, type RouteContexts } from './route-contexts.js';
import { checkRequestSite } from '../csrf.js';
import { requestArgs } from '../request-args.js';
import { httpExchange, requestContext } from '../request-context.js';
import { requestVerb } from '../request-verb.js';

const METHOD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Calls a whitelisted method: unknown path 404, verb not allowed or Guest on a protected method
 * 403; GET runs in a read unit (a write it attempts is refused by the database: a 403 telling the
 * client to use POST), every
 * other verb in one transaction that an error rolls back, except methods registered with
 * `ownTransactions` (login), which open their own, and `readOnly` ones (export), read units whatever
 * the verb.
 */
export async function callMethod(
  site: Site,
  req: FastifyRequest,
  reply: FastifyReply,
  path: string,
  args: Record<string, unknown>,
  envelope: 'message' | 'data',
  found: MethodDefinition | undefined = METHOD_PATH.test(path) ? site.methods.resolve(path) : undefined,
): Promise<unknown> {
  const method = found;
  if (!method) throw new DoesNotExistError(`Method ${path.slice(0, 140)} not found`);
  const verb = requestVerb(req).toUpperCase() as HttpVerb;
  if (!method.methods.includes(verb)) {
    throw new PermissionError('Not permitted', { messages: [{ message: `${verb} is not allowed for ${path}`, title: 'Method Not Allowed' }] });
  }
  // CORS refreshed the settings for any request with an Origin, the only one this check can refuse.
  if (method.startsSession) checkRequestSite(req, site.settingsCache.current.allow_cors);
  const rc = await requestContext(site, req);
  if (!mayCallMethod(method, rc.principal)) {
    const message = rc.principal.isGuest ? `Login required to call ${path}` : `Only ${method.roles?.join(' or ')} may call ${path}`;
    throw new PermissionError('Not permitted', { messages: [{ message, title: 'Not permitted' }] });
  }
  const bound = bindArguments(method.params, args);
  const http = httpExchange(req, reply, rc.sid);
  const detached = method.ownTransactions || !method.usesDatabase;
  const readOnly = !detached && (verb === 'GET' || method.readOnly);
  const run = (detached ? site.detached : readOnly ? site.read : site.write).bind(site);
  const unit = { sid: rc.sid, usesDatabase: method.usesDatabase, messages: rc.messages, request: true };
  const result = await run(rc.principal, (ctx) => method.handler({ ctx, args: bound, services: site.services, http }), unit);
  // The method answered with a file (sendDownload): the reply is already written.
  if (reply.sent) return reply;
  const body: Record<string, unknown> = result === undefined || result === null ? {} : { [envelope]: result };
  return { ...body, ...http.extraBody, ...messagesBody(rc.messages, envelope === 'data' ? 'v2' : 'v1') };
}

/** `/api/method/<dotted.path>` (v1), `/api/v2/method/<path>` (v2), and legacy `cmd` at `/`. */
export function registerMethodRoutes(contexts: RouteContexts, site: Site): void {
  const verbs = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
  for (const prefix of ['/api/method/', '/api/v1/method/']) {
    routeByVerb(contexts, {
      method: [...verbs],
      url: `${prefix}*`,
      handler: (req, reply) => {
        const path = (req.params as { '*': string })['*'].split('/')[0];
        return callMethod(site, req, reply, path, requestArgs(req), 'message');
      },
    });
  }
  routeByVerb(contexts, {
    method: [...verbs],
    url: '/api/v2/method/:path',
    handler: (req, reply) => callMethod(site, req, reply, (req.params as { path: string }).path, requestArgs(req), 'data'),
  });
  // The shorthand for a method of a DocType's controller module (docs/api.md "API v2").
  routeByVerb(contexts, {
    method: [...verbs],
    url: '/api/v2/method/:doctype/:method',
    handler: (req, reply) => {
      const { doctype, method } = req.params as { doctype: string; method: string };
      const path = `${doctype}/${method}`;
      const known = METHOD_NAME.test(method) && site.metas.has(doctype);
      const found = known ? site.methods.resolveControllerMethod(doctype, method, site.metas.get(doctype).def.module) : undefined;
      return callMethod(site, req, reply, path, requestArgs(req), 'data', found);
    },
  });
  // The Python client still calls `GET /?cmd=...` and `POST /` with `cmd`; only the root path routes so.
  routeByVerb(contexts, {
    method: ['GET', 'POST'],
    url: '/',
    handler: (req, reply) => {
      const args = requestArgs(req);
      const cmd = args.cmd;
      if (typeof cmd !== 'string' || cmd === '') throw new DoesNotExistError('Not found');
      delete args.cmd;
      return callMethod(site, req, reply, cmd, args, 'message');
    },
  });
}
