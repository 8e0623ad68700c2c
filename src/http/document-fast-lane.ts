import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MaybePromise } from '../async/maybe-promise.js';
import type { Site } from '../site/site.js';
import { deepArgument } from './nesting-guard.js';
import { parseQueryString } from './query-string.js';
import { firstValues } from './request-args.js';
import { contextOf, type RequestContext } from './request-context.js';
import { documentBody, listPage } from './routes/resource-handlers.js';
import { securityHeaderPairs } from './security-headers.js';

/** A Node request handler: Fastify's own, or one in front of it. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** What the lane needs of the app around it, read at each request. */
export interface FastLaneState {
  /** The server is closing: Fastify's onRequest answers 503, so the lane stays out. */
  closing(): boolean;
  /** Request lines are logged (Fastify writes two per request at `info`); the lane writes none. */
  logsRequests(): boolean;
  /** A request id from the app's own generator. */
  nextRequestId(): string;
  /** Counts an answer for /metrics, as the app's onResponse step does (metrics-routes.ts). */
  countAnswer(route: string, status: number, seconds: number): void;
}

/**
 * `/api/resource/<DocType>/<name>` (and the `/api/v1/` alias) with nothing after the name: no query
 * string, no percent-escapes, no trailing slash, so the router would take exactly these two
 * segments as they are, undecoded (anything else takes the router's way). The groups are the
 * route pattern's prefix, the DocType and the name.
 */
const DOCUMENT_URL = /^(\/api(?:\/v1)?\/resource)\/([A-Za-z0-9_]{1,140})\/([A-Za-z0-9_.@+-]{1,200})$/;

/** `/api/resource/<DocType>` with its query string, the DocType as above: the prefix, DocType and query. */
const LIST_URL = /^(\/api(?:\/v1)?\/resource)\/([A-Za-z0-9_]{1,140})(?:\?(.*))?$/s;

/** Arguments the lane leaves to the route: `sid` authenticates, `expand` reads more, `_` is dropped there. */
const ROUTE_ONLY_ARGUMENTS = ['sid', 'expand', '_'];

/**
 * The headers of the answer, as the route's answer carries them: Fastify's content type, the app's
 * default Cache-Control and security headers (app.ts "defaultHeaders"); Node adds Date, Connection
 * and Keep-Alive to both alike.
 */
const FIXED_HEADERS: readonly string[] = [
  ['content-type', 'application/json; charset=utf-8'],
  ['cache-control', 'no-store'],
  ...securityHeaderPairs().map(([name, value]) => [name.toLowerCase(), value]),
].flat();

/**
 * A GET of one document or of a list page by API token, answered before Fastify routes it
 * (docs/benchmarks.md "The document fast lane"). Routing, four hook phases, the request and reply
 * objects and the reply's header bookkeeping cost a document GET about as much as its SQL
 * statement; these requests need none of them: no body, no CORS (no Origin), no cookie (so no
 * session and no CSRF check). The lane runs the same steps the route runs (the token's principal,
 * the arguments read by the router's parser and measured by the nesting guard, one read unit
 * through `documentBody` or `listPage`, the same headers, the answer counted for /metrics) and
 * hands the request to Fastify untouched whenever it cannot answer with a 200: a request outside
 * its shape, a closing server, maintenance, logged request lines, a failed authentication or read,
 * a list of every row (streamed by the route). A GET changes nothing, so a read done again on
 * Fastify's way is only time; the refusal then comes from the one place errors become answers.
 */
export function documentFastLane(site: Site, state: FastLaneState, fastify: NodeHandler): NodeHandler {
  return (req, res) => {
    const route = laneRoute(site, state, req);
    if (route === undefined) return fastify(req, res);
    const started = performance.now();
    let body: MaybePromise<object | undefined>;
    try {
      body = answer(site, state, req.headers.authorization!, route);
    } catch {
      return fastify(req, res);
    }
    const settle = (ready: object | undefined) => {
      const json = ready === undefined ? undefined : serialized(ready);
      if (json === undefined) return fastify(req, res);
      send(state, res, route.pattern, json, started);
    };
    if (!(body instanceof Promise)) return settle(body);
    body.then(settle, () => fastify(req, res));
  };
}

/** The body as JSON text, or undefined when it cannot be (the route then answers as it would). */
function serialized(body: object): string | undefined {
  try {
    return JSON.stringify(body);
  } catch {
    return undefined;
  }
}

/** A request the lane takes: its route pattern (for /metrics) and the read that answers it. */
interface LaneRoute {
  readonly pattern: string;
  readonly read: (site: Site, rc: RequestContext) => MaybePromise<object | undefined>;
}

/** The route of a request the lane may take, or undefined when it is Fastify's to answer. */
function laneRoute(site: Site, state: FastLaneState, req: IncomingMessage): LaneRoute | undefined {
  if (req.method !== 'GET') return undefined;
  const h = req.headers;
  if (!h.host || h.origin !== undefined || h.cookie !== undefined || h.expect !== undefined) return undefined;
  if (h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return undefined;
  if (h.authorization === undefined || !/^token /i.test(h.authorization)) return undefined;
  if (state.closing() || site.maintenance.current.on || state.logsRequests()) return undefined;
  const url = req.url ?? '';
  const doc = DOCUMENT_URL.exec(url);
  if (doc) {
    const [, prefix, doctype, name] = doc as unknown as [string, string, string, string];
    return { pattern: `${prefix}/:doctype/:name`, read: (s, rc) => documentBody(s, rc, doctype, name, 'v1') };
  }
  const list = LIST_URL.exec(url);
  if (!list) return undefined;
  const [, prefix, doctype, query] = list as unknown as [string, string, string, string | undefined];
  const args = listArguments(query ?? '');
  if (!args) return undefined;
  return { pattern: `${prefix}/:doctype`, read: (s, rc) => listPage(s, rc, doctype, args, 'v1') };
}

/**
 * A list's arguments as the route reads them without a body (request-args.ts), or undefined when
 * the route must judge them: an argument the lane leaves to it, or one the nesting guard refuses.
 */
function listArguments(query: string): Record<string, unknown> | undefined {
  const parsed = parseQueryString(query);
  if (deepArgument(parsed, 'query') !== undefined) return undefined;
  if (ROUTE_ONLY_ARGUMENTS.some((key) => key in parsed)) return undefined;
  return firstValues(parsed);
}

/** The token's principal, then the read; throws (or rejects) whatever the route would answer with. */
function answer(site: Site, state: FastLaneState, authorization: string, route: LaneRoute): MaybePromise<object | undefined> {
  const authenticated = site.identity.authenticate({ authorization, sid: () => undefined });
  const read = (a: Awaited<typeof authenticated>) => {
    // API keys act with the user's full rights; anything else (a session, scopes) is the route's to judge.
    if (a.sid !== undefined || a.scopes !== undefined) throw new Error('not an API key');
    return route.read(site, contextOf(site, a.principal, state.nextRequestId(), undefined));
  };
  return authenticated instanceof Promise ? authenticated.then(read) : read(authenticated);
}

function send(state: FastLaneState, res: ServerResponse, pattern: string, json: string, started: number): void {
  // Names and values in one flat list: Node writes them out as they are, keeping no header table.
  res.writeHead(200, [...FIXED_HEADERS, 'content-length', String(Buffer.byteLength(json))]);
  res.end(json);
  state.countAnswer(pattern, 200, (performance.now() - started) / 1000);
}
