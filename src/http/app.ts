import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { DoesNotExistError, FwError, InvalidRequestBody, RequestTooLarge } from '../errors/index.js';
import type { Site } from '../site/site.js';
import { registerCors } from './cors.js';
import { mapError, v1ErrorBody, v2ErrorBody, type ErrorScope } from './error-response.js';
import { multipartOptions, registerUploadStaging } from './multipart-uploads.js';
import { registerFileRoutes } from './routes/file-routes.js';
import { registerMethodRoutes } from './routes/method-routes.js';
import { registerResourceRoutes } from './routes/resource-routes.js';

/** Options of the HTTP app. */
export interface AppOptions {
  readonly logger?: FastifyServerOptions['logger'];
}

/** Fastify's own request errors (body too large, bad content) in the catalogue's terms. */
function fromFastify(err: FastifyError): FwError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RequestTooLarge('Request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new InvalidRequestBody(err.message);
    default:
      return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500
        ? new InvalidRequestBody(err.message)
        : undefined;
  }
}

/**
 * The HTTP surface of one site. Hook order: request id -> CORS (answers OPTIONS) -> body parsing
 * -> route (each handler authenticates through requestContext) -> envelope; the error handler is
 * last and is the only place errors become responses.
 */
export async function buildApp(site: Site, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: site.config.max_request_size,
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2000 },
    return503OnClosing: true,
    // Behind a trusted proxy, req.ip is X-Forwarded-For's first hop (the login throttle keys on it).
    trustProxy: site.config.trust_proxy,
  });

  registerCors(app, site);
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: site.config.max_request_size });
  await app.register(multipart, multipartOptions(site.config));
  registerUploadStaging(app, site);

  // JSON bodies: empty is "no body"; anything but an object or array is refused, never a 500.
  app.removeContentTypeParser('application/json');
  const parseJson = (_req: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new InvalidRequestBody('Invalid request body: malformed JSON'), undefined);
    }
    if (parsed === null || typeof parsed !== 'object') {
      return done(new InvalidRequestBody('Invalid request body: expected a JSON object or array'), undefined);
    }
    done(null, parsed);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJson);
  // Other content types carry no arguments for us; accept and ignore them rather than answer 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));

  app.addHook('onSend', async (req, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    return payload;
  });

  registerResourceRoutes(app, site);
  registerMethodRoutes(app, site);
  registerFileRoutes(app, site);

  app.setNotFoundHandler(async (req) => {
    throw new DoesNotExistError(`No route for ${req.method} ${req.url.split('?')[0].slice(0, 200)}`);
  });

  app.setErrorHandler(async (err, req, reply) => {
    const scope: ErrorScope = { requestId: req.id, developerMode: site.config.developer_mode, log: req.log };
    const known = err instanceof FwError ? err : fromFastify(err as FastifyError);
    const mapped = mapError(known ?? err, scope);
    reply.code(mapped.status).type('application/json; charset=utf-8');
    return req.url.startsWith('/api/v2/') ? v2ErrorBody(mapped, scope) : v1ErrorBody(mapped, scope);
  });

  return app;
}
