import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Site } from '../../../site/site.js';
import { requestContext } from '../../request-context.js';
import { OpenApiCache } from '../../../openapi/openapi-cache.js';
import type { OpenApiObject } from '../../../openapi/json-schema.js';

/** True when `If-None-Match` names `etag` (or is `*`); weak validators compare equal too. */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/** The first value of a query parameter, when it is a non-empty string. */
function queryValue(req: FastifyRequest, name: string): string | undefined {
  const raw = (req.query as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Sends `text` with its ETag: 304 when the client holds it already. The description depends on
 * who asks, so caches may keep it only privately and must ask again each time (docs/openapi.md).
 */
export function sendTagged(req: FastifyRequest, reply: FastifyReply, text: string, etag: string, type: string): FastifyReply {
  reply.header('ETag', etag).header('Cache-Control', 'private, no-cache').header('Vary', 'Authorization, Cookie');
  if (matchesEtag(req.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(type).send(text);
}

/**
 * `GET /api/openapi.json` and `/api/openapi.yaml`: the OpenAPI 3.1 description of what the caller
 * may use, built in a read unit (so the metadata is current) and cached per role set.
 */
export function registerOpenApiRoutes(
  app: FastifyInstance,
  site: Site,
  extraPaths: () => Record<string, Record<string, OpenApiObject>> = () => ({}),
): OpenApiCache {
  const cache = new OpenApiCache(site, extraPaths);
  const describe = async (req: FastifyRequest) => {
    const rc = await requestContext(site, req);
    const doctype = queryValue(req, 'doctype');
    return site.read(rc.principal, async () => cache.get(rc.principal, doctype), { sid: rc.sid });
  };
  app.get('/api/openapi.json', async (req, reply) => {
    const described = await describe(req);
    return sendTagged(req, reply, described.json, described.jsonEtag, 'application/json; charset=utf-8');
  });
  app.get('/api/openapi.yaml', async (req, reply) => {
    const yaml = await (await describe(req)).yaml();
    return sendTagged(req, reply, yaml.text, yaml.etag, 'application/yaml; charset=utf-8');
  });
  return cache;
}
