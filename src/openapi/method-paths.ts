import type { MethodDefinition } from '../rpc/method-registry.js';
import { messageEnvelope, methodDataEnvelope } from './common-components.js';
import { COMMON_ERRORS, WRITE_ERRORS } from './error-responses.js';
import type { JsonSchema, OpenApiObject } from './json-schema.js';
import { operation, pathParameter } from './operation.js';

type PathItems = Record<string, Record<string, OpenApiObject>>;

/** Methods that take a multipart upload rather than JSON (docs/files.md). */
const MULTIPART = new Set(['upload_file', 'fw.handler.upload_file']);

/**
 * The query parameters of a GET call: each declared parameter; objects and lists travel as JSON
 * text in a query string (docs/api.md "Requests and answers").
 */
function queryParameters(def: MethodDefinition): OpenApiObject[] {
  const required = new Set(def.schema.required ?? []);
  return Object.entries(def.schema.properties).map(([name, schema]) => {
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
    const structured = types.some((t) => t === 'object' || t === 'array' || t === undefined);
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    return {
      name,
      in: 'query',
      ...(required.has(name) ? { required: true } : {}),
      ...(description ? { description } : {}),
      schema: structured ? { type: 'string', description: 'JSON text' } : schema,
    };
  });
}

function summaryOf(def: MethodDefinition): string {
  return def.description?.split('\n')[0] || `Call ${def.path}`;
}

/** One verb of one method under one prefix. */
function methodOperation(def: MethodDefinition, verb: string, style: 'v1' | 'v2'): OpenApiObject {
  const body: JsonSchema = { ...def.schema, additionalProperties: true };
  const get = verb === 'GET';
  const op = operation({
    // A colon never occurs in a method path, so each (path, verb, version) has its own id.
    operationId: `${style === 'v2' ? 'v2method' : 'method'}:${def.path}:${verb.toLowerCase()}`,
    summary: summaryOf(def),
    description: [
      def.description?.split('\n').slice(1).join('\n').trim(),
      get ? 'GET calls run read-only.' : undefined,
      def.path.startsWith('fw.') || def.path.startsWith('frappe.') ? `Also answers as \`${alias(def.path)}\`.` : undefined,
    ]
      .filter(Boolean)
      .join(' '),
    tags: ['Methods'],
    style,
    guest: def.allowGuest,
    parameters: get ? queryParameters(def) : undefined,
    body: get || MULTIPART.has(def.path) ? undefined : body,
    bodyRequired: (def.schema.required?.length ?? 0) > 0,
    ok: {
      description: 'The result; `{}` when the method returns nothing.',
      schema: style === 'v1' ? messageEnvelope(def.result ?? {}) : methodDataEnvelope(def.result ?? {}),
    },
    errors: get ? COMMON_ERRORS : def.path === 'login' ? [...WRITE_ERRORS, 429] : WRITE_ERRORS,
    extensions: { 'x-fw-method': def.path },
  });
  if (MULTIPART.has(def.path)) {
    const properties = { ...def.schema.properties, file: { type: 'string', contentMediaType: 'application/octet-stream' } };
    op.requestBody = { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties } } } };
  }
  return op;
}

function alias(path: string): string {
  return path.startsWith('fw.') ? `frappe.${path.slice(3)}` : `fw.${path.slice(7)}`;
}

/** `/api/method/<path>` and `/api/v2/method/<path>` for every method the caller may call. */
export function methodPaths(methods: readonly MethodDefinition[]): PathItems {
  const paths: PathItems = {};
  for (const def of methods) {
    for (const [prefix, style] of [
      ['/api/method/', 'v1'],
      ['/api/v2/method/', 'v2'],
    ] as const) {
      const item: Record<string, OpenApiObject> = {};
      for (const verb of def.methods) item[verb.toLowerCase()] = methodOperation(def, verb, style);
      paths[prefix + def.path] = item;
    }
  }
  return paths;
}

/** The templated method paths and the legacy `cmd` call at `/`. */
export function genericMethodPaths(): PathItems {
  const paths: PathItems = {};
  const param = pathParameter('method', 'A dotted method path; `fw.*` and `frappe.*` name the same method.');
  for (const [prefix, style, suffix] of [
    ['/api/method/', 'v1', ''],
    ['/api/v1/method/', 'v1', 'V1'],
    ['/api/v2/method/', 'v2', 'V2'],
  ] as const) {
    const item: Record<string, OpenApiObject> = {};
    for (const verb of ['get', 'post', 'put', 'delete', 'patch']) {
      item[verb] = operation({
        operationId: `callMethod${suffix}_${verb}`,
        summary: 'Call a whitelisted method',
        description: 'Each method takes the verbs it was registered with; others are 403. See the paths of each method.',
        tags: ['Methods'],
        style,
        guest: true,
        parameters: [param],
        body: verb === 'get' ? undefined : { type: 'object', additionalProperties: true },
        bodyRequired: false,
        ok: { description: 'The result.', schema: style === 'v1' ? messageEnvelope({}) : methodDataEnvelope({}) },
        errors: WRITE_ERRORS,
      });
    }
    paths[`${prefix}{method}`] = item;
  }
  const cmd = { name: 'cmd', in: 'query', required: true, schema: { type: 'string' }, description: 'The method path.' };
  paths['/'] = {
    get: operation({
      operationId: 'legacyCommand_get',
      summary: 'Call a method the legacy way (`?cmd=<path>`)',
      tags: ['Methods'],
      style: 'v1',
      guest: true,
      parameters: [cmd],
      ok: { description: 'As /api/method/<path>.', schema: messageEnvelope({}) },
    }),
    post: operation({
      operationId: 'legacyCommand_post',
      summary: 'Call a method the legacy way (`cmd` in the body)',
      tags: ['Methods'],
      style: 'v1',
      guest: true,
      body: { type: 'object', required: ['cmd'], properties: { cmd: { type: 'string' } }, additionalProperties: true },
      ok: { description: 'As /api/method/<path>.', schema: messageEnvelope({}) },
      errors: WRITE_ERRORS,
    }),
  };
  return paths;
}
