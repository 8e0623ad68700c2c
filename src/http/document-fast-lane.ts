import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MaybePromise } from '../async/maybe-promise.js';
import type { Site } from '../site/site.js';
import { contextOf } from './request-context.js';
import { documentBody } from './routes/resource-handlers.js';
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
 * segments as they are, undecoded (anything else takes the router's way). The two groups are the
 * route pattern's prefix, the DocType and the name.
 */
const DOCUMENT_URL = /^(\/api(?:\/v1)?\/resource)\/([A-Za-z0-9_]{1,140})\/([A-Za-z0-9_.@+-]{1,200})$/;

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
 * A document GET by API token, answered before Fastify routes it (docs/benchmarks.md "The
 * document fast lane"). Routing, four hook phases, the request and reply objects and the reply's
 * header bookkeeping cost a GET about as much as its SQL statement; this request needs none of them:
 * no body, no CORS (no Origin), no cookie (so no session and no CSRF check), no arguments. The lane
 * runs the same steps the route runs (the token's principal, one read unit through
 * `documentBody`, the same headers, the answer counted for /metrics) and hands the request to
 * Fastify untouched whenever it cannot answer with a 200: a request outside its shape, a closing
 * server, maintenance, logged request lines, a failed authentication or read. A GET changes
 * nothing, so a read done again on Fastify's way is only time; the refusal then comes from the one
 * place errors become answers.
 */
export function documentFastLane(site: Site, state: FastLaneState, fastify: NodeHandler): NodeHandler {
  return (req, res) => {
    const route = laneRoute(site, state, req);
    if (route === undefined) return fastify(req, res);
    const started = performance.now();
    let body: MaybePromise<Record<string, unknown>>;
    try {
      body = answer(site, state, req.headers.authorization!, route.doctype, route.name);
    } catch {
      return fastify(req, res);
    }
    if (!(body instanceof Promise)) return send(state, res, route.pattern, body, started);
    body.then(
      (ready) => send(state, res, route.pattern, ready, started),
      () => fastify(req, res),
    );
  };
}

interface LaneRoute {
  readonly pattern: string;
  readonly doctype: string;
  readonly name: string;
}

/** The route of a request the lane may take, or undefined when it is Fastify's to answer. */
function laneRoute(site: Site, state: FastLaneState, req: IncomingMessage): LaneRoute | undefined {
  if (req.method !== 'GET') return undefined;
  const match = DOCUMENT_URL.exec(req.url ?? '');
  if (!match) return undefined;
  const h = req.headers;
  if (!h.host || h.origin !== undefined || h.cookie !== undefined || h.expect !== undefined) return undefined;
  if (h['content-length'] !== undefined || h['transfer-encoding'] !== undefined) return undefined;
  if (h.authorization === undefined || !/^token /i.test(h.authorization)) return undefined;
  if (state.closing() || site.maintenance.current.on || state.logsRequests()) return undefined;
  return { pattern: `${match[1]}/:doctype/:name`, doctype: match[2]!, name: match[3]! };
}

/** The token's principal, then the document; throws (or rejects) whatever the route would answer with. */
function answer(site: Site, state: FastLaneState, authorization: string, doctype: string, name: string): MaybePromise<Record<string, unknown>> {
  const authenticated = site.identity.authenticate({ authorization, sid: () => undefined });
  const read = (a: Awaited<typeof authenticated>) => {
    // API keys act with the user's full rights; anything else (a session, scopes) is the route's to judge.
    if (a.sid !== undefined || a.scopes !== undefined) throw new Error('not an API key');
    return documentBody(site, contextOf(site, a.principal, state.nextRequestId(), undefined), doctype, name, 'v1');
  };
  return authenticated instanceof Promise ? authenticated.then(read) : read(authenticated);
}

function send(state: FastLaneState, res: ServerResponse, pattern: string, body: Record<string, unknown>, started: number): void {
  const json = JSON.stringify(body);
  // Names and values in one flat list: Node writes them out as they are, keeping no header table.
  res.writeHead(200, [...FIXED_HEADERS, 'content-length', String(Buffer.byteLength(json))]);
  res.end(json);
  state.countAnswer(pattern, 200, (performance.now() - started) / 1000);
}
