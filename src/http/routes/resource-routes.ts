import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Site } from '../../site/site.js';
import { routeByVerb, type RouteContexts } from './route-contexts.js';
import {
  deleteDocument,
  insertDocument,
  listDocuments,
  readDocument,
  refuseVerb,
  runDocumentMethod,
  runMethodName,
  updateDocument,
  type ResourceHandler,
  type ResourceTarget,
} from './resource-handlers.js';
import {
  bulkDeleteAcross,
  bulkDeleteDocuments,
  bulkUpdateAcross,
  bulkUpdateDocuments,
  copyDocument,
  doctypeCount,
  doctypeMeta,
  documentMethod,
} from './v2-handlers.js';

type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const VERBS: readonly Verb[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** One served verb of one resource URL. */
export interface ResourceRoute {
  readonly method: Verb;
  /** The URL with `:doctype`, `:name` and `:method` parameters. */
  readonly url: string;
  readonly handler: ResourceHandler;
  /**
   * The URL's last segment is also a document name (`…/<DocType>/bulk_delete`): the verbs this
   * route does not serve reach the document routes instead of a 405.
   */
  readonly sharesNamePath?: true;
}

/** v1 conventions under `base` (`/api/resource` and its `/api/v1/resource` alias). */
function v1Routes(base: string): ResourceRoute[] {
  return [
    { method: 'GET', url: `${base}/:doctype`, handler: listDocuments('v1') },
    { method: 'POST', url: `${base}/:doctype`, handler: insertDocument('v1') },
    { method: 'GET', url: `${base}/:doctype/:name`, handler: v1ReadOrRunMethod },
    { method: 'POST', url: `${base}/:doctype/:name`, handler: v1RunMethod },
    { method: 'PUT', url: `${base}/:doctype/:name`, handler: updateDocument('v1') },
    { method: 'DELETE', url: `${base}/:doctype/:name`, handler: deleteDocument('v1') },
  ];
}

/** `/api/v2/document`, `/api/v2/doctype` and v2's bulk methods (v2 conventions: bodies keep nulls, envelope `data`). */
function v2Routes(): ResourceRoute[] {
  const base = '/api/v2/document';
  return [
    { method: 'GET', url: `${base}/:doctype`, handler: listDocuments('v2') },
    { method: 'POST', url: `${base}/:doctype`, handler: insertDocument('v2') },
    { method: 'POST', url: `${base}/:doctype/bulk_delete`, handler: bulkDeleteDocuments, sharesNamePath: true },
    { method: 'POST', url: `${base}/:doctype/bulk_update`, handler: bulkUpdateDocuments, sharesNamePath: true },
    { method: 'GET', url: `${base}/:doctype/:name`, handler: readDocument('v2') },
    { method: 'PUT', url: `${base}/:doctype/:name`, handler: updateDocument('v2') },
    { method: 'PATCH', url: `${base}/:doctype/:name`, handler: updateDocument('v2') },
    { method: 'DELETE', url: `${base}/:doctype/:name`, handler: deleteDocument('v2') },
    { method: 'GET', url: `${base}/:doctype/:name/copy`, handler: copyDocument },
    { method: 'GET', url: `${base}/:doctype/:name/method/:method`, handler: documentMethod },
    { method: 'POST', url: `${base}/:doctype/:name/method/:method`, handler: documentMethod },
    { method: 'GET', url: '/api/v2/doctype/:doctype/meta', handler: doctypeMeta },
    { method: 'GET', url: '/api/v2/doctype/:doctype/count', handler: doctypeCount },
    { method: 'POST', url: '/api/v2/method/bulk_delete', handler: bulkDeleteAcross },
    { method: 'POST', url: '/api/v2/method/bulk_update', handler: bulkUpdateAcross },
  ];
}

/** Every resource route, for the routes below and for tools that describe the API. */
export function resourceRoutes(): ResourceRoute[] {
  return [...v1Routes('/api/resource'), ...v1Routes('/api/v1/resource'), ...v2Routes()];
}

/**
 * Registers each route of resourceRoutes(); on each URL the verbs no route serves answer 405 with
 * the served ones in `Allow` (those fillers carry `config.allow`, so a describer can skip them).
 * A document name may hold `/`: the router's `:name` stops at a slash, so such URLs reach a
 * wildcard route per base that splits the rest of the path against the same routes.
 */
export function registerResourceRoutes(contexts: RouteContexts, site: Site): void {
  const routes = resourceRoutes();
  const byUrl = new Map<string, ResourceRoute[]>();
  for (const route of routes) byUrl.set(route.url, [...(byUrl.get(route.url) ?? []), route]);

  for (const route of routes) {
    routeByVerb(contexts, { method: route.method, url: route.url, handler: (req, reply) => route.handler(site, req, reply, paramsTarget(req)) });
  }
  for (const [url, served] of byUrl) {
    if (served.some((r) => r.sharesNamePath)) continue;
    const allow = served.map((r) => r.method).join(', ');
    const others = VERBS.filter((v) => !served.some((r) => r.method === v));
    if (others.length === 0) continue;
    routeByVerb(contexts, { method: others, url, config: { allow }, handler: (req, reply) => refuseVerb(req, reply, allow) });
  }
  for (const base of new Set(routes.filter((r) => r.url.includes('/:doctype/:name')).map((r) => r.url.split('/:doctype')[0]))) {
    const named = [...byUrl.entries()].filter(([url]) => url.startsWith(`${base}/:doctype/:name`));
    const shapes = named.map(([url, served]) => ({ pattern: suffixPattern(url.slice(`${base}/:doctype/:name`.length)), served }));
    routeByVerb(contexts, {
      method: [...VERBS],
      url: `${base}/:doctype/*`,
      config: { slashNames: true },
      handler: (req, reply) => slashNameRoute(site, req, reply, shapes),
    });
  }
}

interface Shape {
  readonly pattern: RegExp;
  readonly served: readonly ResourceRoute[];
}

/** A regular expression for `<name><suffix>`: the name is group 1, a `:method` group 2. */
function suffixPattern(suffix: string): RegExp {
  const escaped = suffix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(':method', '([^/]+)');
  return new RegExp(`^(.+?)${escaped}$`, 's');
}

/**
 * A URL whose name holds `/`: the longest suffix (`/copy`, `/method/<m>`) that serves the verb
 * wins; when none does, 405 with the verbs of the most specific match.
 */
function slashNameRoute(site: Site, req: FastifyRequest, reply: FastifyReply, shapes: readonly Shape[]): unknown {
  const params = req.params as { doctype: string; '*': string };
  const rest = params['*'].replace(/\/+$/, '');
  let firstMatch: Shape | undefined;
  for (const shape of [...shapes].sort((a, b) => b.pattern.source.length - a.pattern.source.length)) {
    const m = shape.pattern.exec(rest);
    if (!m) continue;
    firstMatch ??= shape;
    const route = shape.served.find((r) => r.method === req.method || (req.method === 'HEAD' && r.method === 'GET'));
    if (route) return route.handler(site, req, reply, { doctype: params.doctype, name: m[1], ...(m[2] ? { method: m[2] } : {}) });
  }
  if (!firstMatch) return refuseVerb(req, reply, 'GET, POST');
  return refuseVerb(req, reply, firstMatch.served.map((r) => r.method).join(', '));
}

function paramsTarget(req: FastifyRequest): ResourceTarget {
  const { doctype, name, method } = req.params as { doctype: string; name?: string; method?: string };
  return method === undefined ? { doctype, name: name ?? '' } : { doctype, name: name ?? '', method };
}

const readV1Document = readDocument('v1');

/** v1 `GET …/<name>`: the document, or with `run_method` a document method run read-only. */
const v1ReadOrRunMethod: ResourceHandler = (site, req, reply, target) => {
  const method = runMethodName(req);
  if (method === undefined) return readV1Document(site, req, reply, target);
  return runDocumentMethod(site, req, reply, { ...target, method }).then((outcome) => ({ data: outcome.result ?? null, ...outcome.messages }));
};

/** v1 `POST …/<name>`: only with `run_method` (reference `execute_doc_method`); else 405. */
const v1RunMethod: ResourceHandler = async (site, req, reply, target) => {
  const method = runMethodName(req);
  if (method === undefined) return refuseVerb(req, reply, 'GET, PUT, DELETE');
  const outcome = await runDocumentMethod(site, req, reply, { ...target, method });
  return { data: outcome.result ?? null, ...outcome.messages };
};
