import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Site } from '../../../site/site.js';
import { requestContext } from '../../request-context.js';
import { dataEnvelope } from '../../../openapi/common-components.js';
import { discoveryRoot, doctypeMethodDocument, doctypeMethodIndex, methodDocument, methodIndex, searchMethods } from '../../../openapi/discovery.js';
import type { JsonSchema, OpenApiObject } from '../../../openapi/json-schema.js';
import { operation, pathParameter } from '../../../openapi/operation.js';

function query(req: FastifyRequest, name: string): string {
  const raw = (req.query as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : '';
}

/** `/api/v2/discovery`, `/discovery/search`, `/discovery/method` and `/discovery/method/<path>`, in the v2 envelope. */
export function registerDiscoveryRoutes(app: FastifyInstance, site: Site): void {
  const principal = async (req: FastifyRequest) => (await requestContext(site, req)).principal;
  app.get('/api/v2/discovery', async (req) => ({ data: discoveryRoot(site.methods, await principal(req)) }));
  app.get('/api/v2/discovery/search', async (req) => ({ data: searchMethods(site.methods, await principal(req), query(req, 'q')) }));
  app.get('/api/v2/discovery/method', async (req) => ({ data: methodIndex(site.methods, await principal(req)) }));
  app.get('/api/v2/discovery/method/:method', async (req) => {
    const { method } = req.params as { method: string };
    return { data: methodDocument(site.methods, await principal(req), method) };
  });
  // DocType methods depend on the metadata: read in a unit of work, so it is current.
  const source = { metas: site.metas, methods: site.methods };
  app.get('/api/v2/discovery/doctype/:doctype', async (req) => {
    const { doctype } = req.params as { doctype: string };
    const rc = await requestContext(site, req);
    return { data: await site.read(rc.principal, async () => doctypeMethodIndex(source, rc.principal, doctype), { sid: rc.sid }) };
  });
  app.get('/api/v2/discovery/doctype/:doctype/method/:method', async (req) => {
    const { doctype, method } = req.params as { doctype: string; method: string };
    const rc = await requestContext(site, req);
    return { data: await site.read(rc.principal, async () => doctypeMethodDocument(source, rc.principal, doctype, method), { sid: rc.sid }) };
  });
}

const SUMMARY: JsonSchema = {
  type: 'object',
  required: ['path', 'allow_guest'],
  properties: { path: { type: 'string' }, allow_guest: { type: 'boolean' }, description: { type: 'string' } },
  additionalProperties: false,
};

const METHOD_DOCUMENT: JsonSchema = {
  type: 'object',
  required: ['type', 'path', 'name', 'http_methods', 'allow_guest', 'params', 'endpoint'],
  properties: {
    type: { const: 'method' },
    path: { type: 'string' },
    name: { type: 'string' },
    http_methods: { type: 'array', items: { type: 'string' } },
    allow_guest: { type: 'boolean' },
    params: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'required', 'schema'],
        properties: {
          name: { type: 'string' },
          required: { type: 'boolean' },
          default: {},
          type: { type: 'string', description: 'The JSON Schema type, alternatives joined with ` | `.' },
          schema: { type: 'object', description: "fw's addition: the parameter's JSON Schema." },
        },
        additionalProperties: false,
      },
    },
    endpoint: { type: 'string' },
    docstring: { type: 'string' },
    returns: { type: 'object', description: "fw's addition: the JSON Schema of the result, when the method declares it." },
  },
  additionalProperties: false,
};

const DOCTYPE_SUMMARY: JsonSchema = {
  type: 'object',
  required: ['type', 'kind', 'doctype', 'method'],
  properties: {
    type: { const: 'method' },
    kind: { const: 'doctype' },
    doctype: { type: 'string' },
    method: { type: 'string' },
    description: { type: 'string' },
  },
  additionalProperties: false,
};

const DOCTYPE_INDEX: JsonSchema = {
  type: 'object',
  required: ['type', 'doctype', 'methods'],
  properties: { type: { const: 'method_index' }, doctype: { type: 'string' }, methods: { type: 'array', items: DOCTYPE_SUMMARY } },
  additionalProperties: false,
};

const DOCTYPE_METHOD: JsonSchema = {
  type: 'object',
  required: ['type', 'kind', 'doctype', 'method', 'endpoint', 'http_methods', 'permission', 'params'],
  properties: {
    type: { const: 'method' },
    kind: { const: 'doctype' },
    doctype: { type: 'string' },
    method: { type: 'string' },
    endpoint: { type: 'string' },
    http_methods: { type: 'array', items: { enum: ['GET', 'POST'] } },
    permission: { type: 'object', additionalProperties: { type: 'string' } },
    params: { type: 'array' },
    docstring: { type: 'string' },
  },
  additionalProperties: false,
};

/** The discovery routes in the API description. */
export function discoveryPaths(): Record<string, Record<string, OpenApiObject>> {
  const op = (id: string, summary: string, schema: JsonSchema, parameters: OpenApiObject[] = []) => ({
    get: operation({
      operationId: id,
      summary,
      tags: ['Description'],
      style: 'v2',
      guest: true,
      parameters,
      ok: { description: 'Methods the caller may call (Guest: those that allow guests).', schema: dataEnvelope(schema, 'v2') },
      errors: [400, 401, 403, 404, 500, 503],
    }),
  });
  return {
    '/api/v2/discovery': op('discovery', 'What discovery offers', {
      type: 'object',
      required: ['type', 'resources', 'links'],
      properties: {
        type: { const: 'discovery' },
        resources: { type: 'object', properties: { methods: { type: 'integer' } } },
        links: { type: 'object', additionalProperties: { type: 'string' } },
      },
    }),
    '/api/v2/discovery/search': op(
      'discoverySearch',
      'Methods whose path or description hold every word of `q` (at most 50)',
      {
        type: 'object',
        required: ['query', 'results'],
        properties: {
          query: { type: 'string' },
          results: { type: 'array', items: { ...SUMMARY, properties: { ...(SUMMARY.properties as object), type: { const: 'method' } } } },
        },
      },
      [{ name: 'q', in: 'query', schema: { type: 'string' } }],
    ),
    '/api/v2/discovery/method': op('discoveryMethods', 'Every method the caller may call', {
      type: 'object',
      required: ['type', 'methods'],
      properties: { type: { const: 'method_index' }, methods: { type: 'array', items: SUMMARY } },
    }),
    '/api/v2/discovery/method/{method}': op('discoveryMethod', 'One method with its parameters', METHOD_DOCUMENT, [
      pathParameter('method', 'A dotted method path.'),
    ]),
    '/api/v2/discovery/doctype/{doctype}': op('discoveryDocTypeMethods', "The whitelisted methods of a DocType's documents", DOCTYPE_INDEX, [
      pathParameter('doctype', 'A DocType the caller may read or write.'),
    ]),
    '/api/v2/discovery/doctype/{doctype}/method/{method}': op('discoveryDocTypeMethod', 'One document method and how to call it', DOCTYPE_METHOD, [
      pathParameter('doctype', 'A DocType the caller may read or write.'),
      pathParameter('method', 'The method name.'),
    ]),
  };
}
