import { errorRefs } from './error-responses.js';
import type { OpenApiObject } from './json-schema.js';
import { pathParameter } from './operation.js';
import { security } from './common-components.js';
import { oauthPaths } from './oauth-paths.js';

type PathItems = Record<string, Record<string, OpenApiObject>>;

const BYTES = { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };

function fileOperation(id: string, summary: string, guest: boolean, description: string): OpenApiObject {
  return {
    operationId: id,
    summary,
    description,
    tags: ['Files'],
    security: security(guest),
    parameters: [
      pathParameter('path', 'The file name (and folders) under the files root.'),
      { name: 'Range', in: 'header', schema: { type: 'string', examples: ['bytes=0-4'] } },
      { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
    ],
    responses: {
      '200': { description: 'The bytes, with `ETag`, `Last-Modified` and `Accept-Ranges: bytes`.', content: BYTES },
      '206': { description: 'The byte range asked for, with `Content-Range`.', content: BYTES },
      '304': { description: 'Unchanged since the `ETag` sent in `If-None-Match`.' },
      ...errorRefs('v1', guest ? [404, 416] : [403, 404, 416]),
    },
  };
}

/** File serving (docs/files.md), the realtime event stream (docs/realtime.md) and this description. */
export function otherPaths(): PathItems {
  return {
    '/files/{path}': {
      get: fileOperation('getPublicFile', 'A public file', true, 'Anyone; `Cache-Control: public, max-age=3600`.'),
    },
    '/private/files/{path}': {
      get: fileOperation('getPrivateFile', 'A private file', false, 'Signed-in users who may read the File or the document it is attached to.'),
    },
    '/api/v2/realtime': {
      get: {
        operationId: 'realtimeEvents',
        summary: 'Live document events (Server-Sent Events)',
        description: 'See docs/realtime.md for the events and how to subscribe.',
        tags: ['Realtime'],
        security: security(true),
        responses: {
          '200': { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorRefs('v2', [400, 403, 417, 429, 503]),
        },
      },
    },
    ...describePaths(),
    ...metricsPaths(),
    ...oauthPaths(),
  };
}

/** `/metrics` and its method-path forms (docs/deployment.md "Metrics"). */
function metricsPaths(): PathItems {
  const op = (id: string): OpenApiObject => ({
    operationId: id,
    summary: 'Prometheus metrics of this site and process',
    description:
      'Requests by route and status, latency, database pool, job queue, event loop and process. A System Manager, or the `metrics_token` as a bearer token.',
    tags: ['Operations'],
    security: [{ metricsToken: [] }, ...security(false)],
    responses: {
      '200': { description: 'The Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...errorRefs('v1', [401, 403]),
    },
  });
  return {
    '/metrics': { get: op('getMetrics') },
    '/api/method/fw.metrics': { get: op('getMetricsFw') },
    '/api/method/frappe.metrics': { get: op('getMetricsFrappe') },
    '/api/v1/method/fw.metrics': { get: op('getMetricsFwV1') },
    '/api/v1/method/frappe.metrics': { get: op('getMetricsFrappeV1') },
  };
}

/** `/api/openapi.json` and `.yaml` (docs/openapi.md). */
function describePaths(): PathItems {
  const params = [
    { name: 'doctype', in: 'query', schema: { type: 'string' }, description: 'Only the paths and schemas of this DocType.' },
    { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
  ];
  const op = (id: string, type: string, summary: string): OpenApiObject => ({
    operationId: id,
    summary,
    description: 'What the caller may use: DocTypes they cannot read and fields above their permlevels are left out.',
    tags: ['Description'],
    security: security(true),
    parameters: params,
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 description, with an `ETag`.',
        content: { [type]: { schema: { type: type.endsWith('json') ? 'object' : 'string' } } },
      },
      '304': { description: 'Unchanged since the `ETag` sent in `If-None-Match`.' },
      ...errorRefs('v1', [403, 404, 500, 503]),
    },
  });
  return {
    '/api/openapi.json': { get: op('getOpenApiJson', 'application/json', 'This description as JSON') },
    '/api/openapi.yaml': { get: op('getOpenApiYaml', 'application/yaml', 'This description as YAML') },
  };
}
