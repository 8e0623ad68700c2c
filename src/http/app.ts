import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Fastify, { type RouteOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { DoesNotExistError } from '../errors/index.js';
import { oauthErrorOf } from '../oauth/oauth-errors.js';
import { registerRealtime } from '../realtime/index.js';
import { SOCKET_IO_PATH } from '../realtime/socketio/socket-server.js';
import type { TrustProxy } from '../site/site-config.js';
import type { Site } from '../site/site.js';
import { bodyIdleTimeout, DEFAULT_BODY_IDLE_TIMEOUT_MS } from './body-idle-timeout.js';
import { documentFastLane, type NodeHandler } from './document-fast-lane.js';
import { parseQueryString } from './query-string.js';
import { siteMetrics } from '../metrics/site-metrics.js';
import { applyCors, corsSteps } from './cors.js';
import { v1ErrorBody, v2ErrorBody, type ErrorScope } from './error-response.js';
import { clientAbort, clientErrorHandler, expectationFailedHandler, mapRequestError, missingHost, shuttingDown } from './framework-errors.js';
import { parseJsonBody, readJsonBodyOfGet } from './get-json-body.js';
import { lingerAfterAnswer } from './linger.js';
import { serializeRequest } from './log-redaction.js';
import { refuseDeepArguments } from './nesting-guard.js';
import { lazyRequestLoggers } from './request-logger.js';
import { registerRequestPipeline, type RequestStep } from './request-pipeline.js';
import { setSecurityHeaders } from './security-headers.js';
import { serveOtherUpgradesAsHttp } from './upgrade-fallback.js';
import { multipartOptions, uploadSteps } from './multipart-uploads.js';
import { registerAdminUi } from './admin-ui.js';
import { countAnswers, registerMetricsRoutes } from './routes/metrics-routes.js';
import { refuseInMaintenance } from './maintenance.js';
import { registerOpenApi } from './routes/openapi/index.js';
import { registerFileRoutes } from './routes/file-routes.js';
import { registerMethodRoutes } from './routes/method-routes.js';
import { registerOAuthRoutes } from './routes/oauth-routes.js';
import { registerResourceRoutes } from './routes/resource-routes.js';

/** Options of the HTTP app. */
export interface AppOptions {
  /** Fastify's logger options; the request serializer is always the redacting one. */
  readonly logger?: FastifyServerOptions['logger'];
  /** Milliseconds a request body may go without a byte before it is given up (default 60 s; 0: never). */
  readonly bodyIdleTimeoutMs?: number;
  /** Told of every route as it is added (the test that every route is described in docs/openapi.md uses it). */
  readonly onRoute?: (route: RouteOptions) => void;
  /**
   * The server the app's handler is given to, instead of one of its own: `fw serve --sites` hands
   * each site a server that never listens and passes it the requests for that site
   * (cli/site-server.ts; docs/architecture.md "Several sites in one process").
   */
  readonly serverFactory?: FastifyServerOptions['serverFactory'];
}

/**
 * Request ids shaped like UUIDs: a random prefix per process and a counter, so ids stay unique
 * across workers and restarts without drawing random bytes for every request.
 */
function requestIds(): () => string {
  const prefix = randomUUID().slice(0, 24);
  let next = 0;
  return () => prefix + (next++ % 0x1000000000000).toString(16).padStart(12, '0');
}

/** The logger options with the request serializer that keeps secrets in the query string out of the log. */
function loggerOptions(logger: AppOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = logger === true ? {} : logger;
  return { ...base, serializers: { ...base.serializers, req: serializeRequest } };
}

/**
 * The HTTP surface of one site. Every request takes the steps of the pipeline below, phase by
 * phase: request id -> closing, Host and maintenance refusals -> CORS (answers OPTIONS) -> body
 * parsing (multipart staged) -> nesting-depth guard -> route (each handler authenticates through
 * requestContext) -> envelope and headers -> counted for /metrics; the error handler is last and
 * is the only place errors become responses.
 */
export async function buildApp(site: Site, options: AppOptions = {}): Promise<FastifyInstance> {
  const developerMode = site.config.developer_mode;
  const bodyIdleMs = options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS;
  const nextRequestId = requestIds();
  // The server's requests go to `front`: Fastify's handler, and once the routes are in place the
  // document fast lane before it (document-fast-lane.ts).
  let fastify: NodeHandler | undefined;
  let front: NodeHandler | undefined;
  const app = Fastify({
    logger: loggerOptions(options.logger),
    ...(options.logger ? { childLoggerFactory: lazyRequestLoggers } : {}),
    bodyLimit: site.config.max_request_size,
    genReqId: nextRequestId,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2000, querystringParser: parseQueryString },
    // Fastify's own 503 while closing has no envelope; the onRequest hook below answers instead.
    return503OnClosing: false,
    // Errors the router raises before any route or hook (a bad percent-escape, an overlong path
    // segment) get the envelope through the one error responder.
    frameworkErrors: (err, req, reply) => void sendError(site, err, req, reply),
    // Errors of Node's HTTP parser (oversize headers: 431) are answered on the socket, as JSON too.
    clientErrorHandler: clientErrorHandler(developerMode),
    // A request without Host is refused by the first hook below, in the envelope (Node's own 400 is empty).
    http: { requireHostHeader: false },
    // Behind trusted proxies, req.ip is the address the nearest untrusted hop was seen at: the one
    // the outermost trusted proxy appended to X-Forwarded-For, never a hop the client wrote
    // itself (the login throttle and session records key on it; docs/deployment.md).
    trustProxy: trustProxyOption(site.config.trust_proxy),
    serverFactory: (handler, opts) => {
      fastify = handler;
      const dispatch: NodeHandler = (req, res) => (front ?? handler)(req, res);
      return options.serverFactory ? options.serverFactory(dispatch, opts) : plainServer(dispatch, opts);
    },
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // An `Expect` Node does not understand: 417 in the envelope rather than Node's empty one.
  app.server.on('checkExpectation', expectationFailedHandler(developerMode, app.log));

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // Cookies are parsed only by authentication, and only for requests without a token.
  await app.register(cookie, { hook: false });
  await app.register(formbody, { bodyLimit: site.config.max_request_size });

  // JSON bodies: empty is "no body"; anything but an object or array is refused, never a 500.
  app.removeContentTypeParser('application/json');
  const parseJson = (_req: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    let parsed: unknown;
    try {
      parsed = parseJsonBody(String(body));
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, parsed);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJson);
  // Other content types carry no arguments for us; accept and ignore them rather than answer 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));

  const bodyIdle = bodyIdleTimeout(bodyIdleMs);
  const cors = corsSteps(site);
  const uploads = uploadSteps(site, bodyIdleMs);
  registerRequestPipeline(app, {
    onRequest: [() => (closing ? shuttingDown() : undefined), missingHost, refuseInMaintenance(site), bodyIdle.start, cors.preflight],
    // Bodies Fastify does not parse itself, then checks of the arguments as a whole: one phase, since
    // nothing (no schema) runs between preValidation and preHandler and every phase costs each request.
    preValidation: [],
    preHandler: [uploads.stage, readJsonBodyOfGet(site.config.max_request_size), bodyIdle.end, refuseDeepArguments],
    onSend: [cors.headers, uploads.release, defaultHeaders],
    // Counted for /metrics (docs/deployment.md "Metrics").
    onResponse: [uploads.release, countAnswers(site)],
  });

  // Set before any route or child context is registered: a child context copies the handler it sees then.
  app.setErrorHandler(async (err, req, reply) => errorBody(err, req, reply, developerMode));

  registerMetricsRoutes(app, site);
  // Multipart bodies are read only by the routes that can take one: the plugin adds an onResponse
  // hook and request decorations that every request in its context pays, and a GET never carries
  // an upload (docs/benchmarks.md "What keeps the hot path fast"). The GET routes stay in `app`.
  await app.register(async (writes) => {
    await writes.register(multipart, multipartOptions(site.config));
    registerResourceRoutes({ reads: app, writes }, site);
    registerMethodRoutes({ reads: app, writes }, site);
  });
  registerFileRoutes(app, site);
  // fw as an OAuth2 / OpenID Connect provider (docs/identity.md "fw as an OAuth2 / OpenID Connect provider").
  if (site.oauth) registerOAuthRoutes(app, site, site.oauth);
  // Socket.IO on this app's server and the event stream (docs/realtime.md).
  registerRealtime(app, site);
  // Other requests carrying `Upgrade` are answered as plain HTTP rather than dropped.
  serveOtherUpgradesAsHttp(app.server, (url) => url.startsWith(`${SOCKET_IO_PATH}/`));
  // The OpenAPI description, its reference page and method discovery (docs/openapi.md).
  registerOpenApi(app, site);
  // The admin web UI at /app and /login (docs/admin-ui.md); off with `admin_ui: false`.
  registerAdminUi(app, site);

  app.setNotFoundHandler(async (req) => {
    throw new DoesNotExistError(`No route for ${req.method} ${req.url.split('?')[0].slice(0, 200)}`);
  });

  const metrics = siteMetrics(site);
  const log = app.log as { isLevelEnabled?: (level: string) => boolean };
  front = documentFastLane(
    site,
    {
      closing: () => closing,
      logsRequests: () => log.isLevelEnabled?.('info') ?? false,
      nextRequestId,
      countAnswer: (route, status, seconds) => metrics.observe('GET', route, status, seconds),
    },
    fastify!,
  );
  return app;
}

/** The HTTP/1 server Fastify makes when given no factory, with the timeouts it sets on it (fastify/lib/server.js). */
function plainServer(handler: NodeHandler, opts: Record<string, unknown>): Server {
  const server = createServer((opts.http ?? {}) as Parameters<typeof createServer>[0] & object, handler);
  server.keepAliveTimeout = opts.keepAliveTimeout as number;
  server.requestTimeout = opts.requestTimeout as number;
  server.setTimeout(opts.connectionTimeout as number);
  if ((opts.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = opts.maxRequestsPerSocket as number;
  return server;
}

/** No caching unless a route says otherwise, and the headers every answer carries. */
const defaultHeaders: RequestStep = (_req, reply) => {
  if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
  setSecurityHeaders(reply);
  return undefined;
};

/**
 * site_config's `trust_proxy` as Fastify takes it. A number of hops becomes "trust the n nearest
 * hops" (Fastify refuses bare hop counts, since they believe whoever connects directly: that is
 * why docs/deployment.md asks for fw to be reachable only through the proxies then); addresses
 * are handed over as they are.
 */
function trustProxyOption(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return [...trust];
}

/** The error body of a failed request (v1 or v2 by its path), with status and headers set on `reply`. */
function errorBody(err: unknown, req: FastifyRequest, reply: FastifyReply, developerMode: boolean): object {
  const scope: ErrorScope = { requestId: req.id, developerMode, log: req.log };
  const mapped = mapRequestError(clientAbort(err, req) ?? err, scope);
  reply.code(mapped.status).type('application/json; charset=utf-8');
  // A body left half-read cannot be followed by another request on this connection; the rest of
  // it is read past for a while so the client can read this answer (linger.ts). A body that
  // stopped arriving (408) has nobody left sending.
  if (req.raw.complete === false) {
    reply.header('Connection', 'close');
    if (mapped.status !== 408) lingerAfterAnswer(req);
  }
  if (req.url.startsWith('/api/v2/')) return v2ErrorBody(mapped, scope);
  const body = v1ErrorBody(mapped, scope);
  const oauth = oauthErrorOf(mapped.error);
  if (!oauth) return body;
  // An OAuth endpoint's refusal: RFC 6749's `error` and status beside fw's `exc_type`.
  reply.code(oauth.status);
  if (oauth.code === 'invalid_client' && req.headers.authorization) reply.header('WWW-Authenticate', 'Basic realm="fw"');
  if (oauth.code === 'invalid_token' || oauth.code === 'insufficient_scope') reply.header('WWW-Authenticate', `Bearer error="${oauth.code}"`);
  return { error: oauth.code, error_description: mapped.message, ...body };
}

/**
 * Sends the error answer of a request that never reached a route (Fastify's frameworkErrors).
 * Such answers skip the app's onSend hooks, so the headers those add are set here.
 */
async function sendError(site: Site, err: unknown, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = errorBody(err, req, reply, site.config.developer_mode);
  reply.header('Cache-Control', 'no-store');
  setSecurityHeaders(reply);
  await applyCors(site, req, reply);
  reply.send(body);
}
